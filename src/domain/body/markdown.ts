import type { Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

// Built once: the extension objects are stateless, and rebuilding them per call
// is a measurable part of parsing the small fragments edits carry. The GFM
// tree transform that scans every text node for bare URLs is dropped: it only
// turns text into links, which block editing never looks at, and it costs a
// tenth of each parse.
const syntaxExtensions = [gfm()];
const treeExtensions = gfmFromMarkdown().map(({ transforms: _linkify, ...extension }) => extension);

/** Parse Markdown (CommonMark + GFM) into an mdast tree with source positions. */
export function parseMarkdown(text: string): Root {
  return fromMarkdown(text, { extensions: syntaxExtensions, mdastExtensions: treeExtensions });
}
