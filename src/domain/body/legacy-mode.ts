/**
 * The older way to change a body: `body` merged by the call's `mode`.
 * @see openapi/openapi.yaml UpdateItemsInput.mode
 */
export type LegacyMode = 'prepend' | 'append' | 'replace' | 'insertAfter';

/** The new body, or an error sentence when the anchor of `insertAfter` is not in the body. */
export function mergeBody(current: string | null, text: string, mode: LegacyMode, anchor: string | null): { body: string } | { error: string } {
  const base = current ?? '';
  const newline = base.includes('\r\n') ? '\r\n' : '\n';
  switch (mode) {
    case 'replace':
      return { body: text };
    case 'prepend':
      return { body: base.trim() === '' ? text : `${text}${newline}${newline}${base}` };
    case 'insertAfter': {
      const at = anchor ? base.indexOf(anchor) : -1;
      if (!anchor || at < 0)
        return {
          error: `anchor ${JSON.stringify(anchor ?? '')} was not found in the body; pass a verbatim snippet of an existing line (get_item shows the body).`,
        };
      const lineEnd = base.indexOf('\n', at + anchor.length);
      if (lineEnd < 0) return { body: `${base}${newline}${text}` };
      return { body: `${base.slice(0, lineEnd + 1)}${text}${newline}${base.slice(lineEnd + 1)}` };
    }
    default:
      return { body: base.trim() === '' ? text : `${base.replace(/\s+$/, '')}${newline}${newline}${text}` };
  }
}
