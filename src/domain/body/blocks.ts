import type { Block, FlatBlocks, ParsedBody, PlacedBlock, Unit } from './block-types.js';
import { lineEndAfter } from './lines.js';
import { parseWindow } from './parse-window.js';
import { settledCount } from './restarts.js';

/**
 * Blocks: the editable pieces of a body, found with the Markdown parser.
 *
 * Every top-level node is a block, except lists: each list item is a block of
 * its own, nested items included. A list item's block covers the item's OWN
 * text (marker, checkbox, paragraphs, code…) up to its first nested list; the
 * nested items are separate, deeper blocks. Content an item carries after its
 * nested list (a rare trailing paragraph) is a block of its own too.
 * Blockquotes, tables, code fences and footnote definitions are single blocks
 * whatever they contain.
 *
 * Parsing is done in "units": a top-level node, or one top-level list item
 * with everything nested in it. A unit boundary is a point where Markdown's
 * line-by-line block parsing starts afresh, so the text can be parsed in
 * windows (micromark slows down quadratically with the number of containers
 * in one parse) and an edited body can be re-parsed only around its changes
 * (reparse.ts). Where parsing may restart is decided in restarts.ts.
 */

export type { Block, BlockKind, FlatBlocks, ItemInfo, ParsedBody, PlacedBlock, Unit } from './block-types.js';

/** Size of one parse window; windows grow when a single unit is larger. */
export const DEFAULT_WINDOW = 4096;

/** Parse a whole body into units and blocks. */
export function parseBody(text: string, windowSize = DEFAULT_WINDOW): ParsedBody {
  const units: Unit[] = [];
  const starts: number[] = [];
  let from = 0;
  let size = windowSize;
  while (from < text.length) {
    const to = lineEndAfter(text, from + size);
    const candidates = parseWindow(text, from, to);
    const atEnd = to >= text.length;
    const settled = settledCount(text, from, candidates, atEnd);
    if (settled === 0 && !atEnd) {
      size *= 2;
      continue;
    }
    if (candidates.length === 0) {
      // Only blank text left (a body without blocks): it joins the unit before, if any.
      extendLastUnit(units, starts, from, text.length);
      break;
    }
    for (let i = 0; i < settled; i++) {
      const candidate = candidates[i]!;
      const next = i + 1 < candidates.length ? candidates[i + 1]!.start : text.length;
      pushUnit(units, starts, candidate.start, next, candidate.blocks);
    }
    if (atEnd) break;
    from = candidates[settled]!.start;
    size = windowSize;
  }
  return finishBody(text, units, starts);
}

/** All blocks of a parsed body with absolute offsets, as parallel arrays (memoised on the body). */
export function flatBlocks(body: ParsedBody): FlatBlocks {
  if (body.flat) return body.flat;
  const blocks: Block[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  for (let u = 0; u < body.units.length; u++) {
    const base = body.starts[u]!;
    for (const block of body.units[u]!.blocks) {
      blocks.push(block);
      starts.push(base + block.start);
      ends.push(base + block.end);
    }
  }
  body.flat = { blocks, starts, ends };
  return body.flat;
}

/** All blocks of a parsed body with absolute offsets, in document order. */
export function placedBlocks(body: ParsedBody): PlacedBlock[] {
  const out: PlacedBlock[] = [];
  for (let u = 0; u < body.units.length; u++) {
    const base = body.starts[u]!;
    for (const block of body.units[u]!.blocks) out.push({ block, start: base + block.start, end: base + block.end });
  }
  return out;
}

export function finishBody(text: string, units: Unit[], starts: number[]): ParsedBody {
  let blockCount = 0;
  for (const unit of units) blockCount += unit.blocks.length;
  return { text, units, starts, blockCount };
}

export function pushUnit(units: Unit[], starts: number[], start: number, end: number, blocks: readonly Block[]): void {
  units.push({ length: end - start, blocks });
  starts.push(start);
}

export function extendLastUnit(units: Unit[], starts: number[], from: number, end: number): void {
  const last = units.length - 1;
  if (last < 0) {
    pushUnit(units, starts, from, end, []);
    return;
  }
  units[last] = { length: end - starts[last]!, blocks: units[last]!.blocks };
}
