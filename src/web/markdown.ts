/**
 * Markdown to HTML for the person's pages, safely: micromark with GFM, raw HTML in the
 * source escaped (never passed through) and link or image URLs with a dangerous protocol
 * (`javascript:`, `data:`, ...) dropped. Agents write chat messages and bodies, so their
 * text is untrusted here.
 */
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';

/** Renders untrusted Markdown to HTML that carries no script, no raw HTML and no dangerous URL. */
export function renderMarkdown(markdown: string): string {
  return micromark(markdown, { allowDangerousHtml: false, allowDangerousProtocol: false, extensions: [gfm()], htmlExtensions: [gfmHtml()] });
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/**
 * Untrusted Markdown as the plain text a reader sees, without its syntax (`**Tesco**` → `Tesco`):
 * for one-line excerpts, where block markup would not fit. The result is text, escaped again
 * wherever it is shown; rendering first means every Markdown rule is micromark's, not a regex's.
 */
export function markdownText(markdown: string): string {
  return renderMarkdown(markdown)
    .replace(/<[^>]*>/g, '')
    .replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!)
    .replace(/\s+/g, ' ')
    .trim();
}
