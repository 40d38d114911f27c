import type { Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

// Built once: the extension objects are stateless, and rebuilding them per call
// is a measurable part of parsing the small fragments edits carry.
const syntaxExtensions = [gfm()];
const treeExtensions = [gfmFromMarkdown()];

/** Parse Markdown (CommonMark + GFM) into an mdast tree with source positions. */
export function parseMarkdown(text: string): Root {
  return fromMarkdown(text, { extensions: syntaxExtensions, mdastExtensions: treeExtensions });
}
