import type { BlockKind, ItemInfo } from './blocks.js';
import {
  adoptListStyle,
  countLineEndings,
  dedentLines,
  fragmentFromText,
  fromLf,
  hasBlankLine,
  indentGap,
  indentLines,
  listStyleOf,
  shiftGap,
  splitGap,
  toLf,
  type FragmentBlock,
} from './fragments.js';
import { blockAt, depthAt, gapAt, itemAt, itemOf, positionOf, setGap, subtreeEnd, type WorkBlock, type WorkDoc } from './work-doc.js';

export type Where = { at: 'before' | 'after'; block: WorkBlock } | { at: 'start' | 'end' };

/**
 * Put fragment blocks next to a block or at an end of the body. Items next to
 * an item join its list (same marker, same spacing); anything else is kept
 * apart from its neighbours by blank lines, at the neighbour's indentation.
 * `origins` are the blocks a move carries, which keep their identity.
 */
export function placeFragment(doc: WorkDoc, fragment: FragmentBlock[], where: Where, origins?: WorkBlock[]): void {
  const entries = doc.entries;
  const startsWithItem = fragment[0]!.item !== null;
  const endsWithItem = lastTopLevel(fragment).item !== null;
  if (where.at === 'before' || where.at === 'after') {
    const x = where.block;
    const i = positionOf(doc, x);
    const item = itemOf(x);
    const join = item !== null && startsWithItem;
    if (join) adoptListStyle(fragment, listStyleOf(item, where.at === 'after' ? 1 : 0));
    const itemSep = join ? itemSeparator(doc, i) : '';
    const placed = place(doc, fragment, x.col, x.depth, origins);
    if (where.at === 'after') {
      const j = subtreeEnd(doc, i);
      placed[0]!.gap = join ? itemSep : blankSeparator(doc, x.col);
      if (j < entries.length && !(join && endsWithItem) && !hasBlankLine(gapAt(doc, j))) {
        const next = blockAt(doc, j);
        setGap(next, doc.eol + next.gap);
      }
      entries.splice(j, 0, ...placed);
    } else {
      placed[0]!.gap = i === 0 || join || hasBlankLine(x.gap) ? x.gap : doc.eol + x.gap;
      setGap(x, join && endsWithItem ? itemSep : blankSeparator(doc, x.col));
      entries.splice(i, 0, ...placed);
    }
    return;
  }
  if (entries.length === 0) {
    const placed = place(doc, fragment, 0, 0, origins);
    placed[0]!.gap = '';
    entries.push(...placed);
    return;
  }
  if (where.at === 'start') {
    const first = blockAt(doc, 0);
    const item = itemOf(first);
    const join = item !== null && startsWithItem;
    if (join) adoptListStyle(fragment, listStyleOf(item, 0));
    const itemSep = join ? itemSeparator(doc, 0) : '';
    const placed = place(doc, fragment, join ? first.col : 0, 0, origins);
    const { lines, indent } = splitGap(first.gap);
    placed[0]!.gap = join ? lines + indent : lines;
    setGap(first, join && endsWithItem ? itemSep : doc.eol + doc.eol + indent);
    entries.splice(0, 0, ...placed);
    return;
  }
  let t = entries.length - 1;
  while (t > 0 && depthAt(doc, t) > 0) t--;
  const lastTop = blockAt(doc, t);
  const item = itemOf(lastTop);
  const join = item !== null && startsWithItem;
  if (join) adoptListStyle(fragment, listStyleOf(item, 1));
  const placed = place(doc, fragment, join ? lastTop.col : 0, 0, origins);
  placed[0]!.gap = join ? itemSeparator(doc, t) : doc.eol + doc.eol;
  entries.push(...placed);
}

/** Turn fragment blocks into work blocks at a column and depth, in the body's line endings. */
export function place(doc: WorkDoc, fragment: readonly FragmentBlock[], col: number, depth: number, origins?: WorkBlock[]): WorkBlock[] {
  const prefix = ' '.repeat(col);
  return fragment.map((f, k) => {
    const text = fromLf(indentLines(f.text, prefix), doc.eol);
    const gap = k === 0 ? '' : fromLf(indentGap(f.gap, prefix), doc.eol);
    const origin = origins?.[k];
    if (!origin) {
      return {
        handle: null,
        kind: f.kind,
        depth: depth + f.depth,
        col: col + f.col,
        item: f.item,
        endsInHtml: f.endsInHtml,
        stale: false,
        text,
        gap,
        srcText: -1,
        srcGap: -1,
        gone: null,
      };
    }
    if (origin.text !== text) {
      origin.text = text;
      origin.srcText = -1;
    }
    origin.gap = gap;
    origin.srcGap = -1;
    origin.kind = f.kind;
    origin.item = f.item;
    origin.endsInHtml = f.endsInHtml;
    origin.stale = false;
    origin.depth = depth + f.depth;
    origin.col = col + f.col;
    return origin;
  });
}

/**
 * Remove entries [i, j). The blocks around the hole keep the wider of the two
 * separations, so the neighbours cannot merge into one block.
 */
export function removeRange(doc: WorkDoc, i: number, j: number): WorkBlock[] {
  const removed: WorkBlock[] = [];
  for (let k = i; k < j; k++) removed.push(blockAt(doc, k));
  doc.entries.splice(i, j - i);
  if (doc.entries.length === 0) {
    doc.tail = '';
    doc.srcTail = -1;
    return removed;
  }
  if (i < doc.entries.length) {
    const before = removed[0]!.gap;
    const nextGap = gapAt(doc, i);
    if (i === 0 || countLineEndings(nextGap) < countLineEndings(before)) {
      setGap(blockAt(doc, i), splitGap(before).lines + splitGap(nextGap).indent);
    }
  }
  return removed;
}

/** A moved subtree as a fragment: "\n" line endings, its first block at column 0. */
export function fragmentFromBlocks(blocks: readonly WorkBlock[]): FragmentBlock[] {
  const root = blocks[0]!;
  return blocks.map((b, k) => ({
    text: dedentLines(toLf(b.text), root.col),
    gap: k === 0 ? '' : shiftGap(toLf(b.gap), -root.col),
    depth: b.depth - root.depth,
    col: Math.max(b.col - root.col, 0),
    kind: b.kind,
    item: itemOf(b),
    endsInHtml: b.endsInHtml,
  }));
}

/**
 * Wrap plain Markdown as one list item with the given item's marker. A task
 * keeps its checkbox when the new text starts with text (a checkbox in front
 * of a heading or a fence would turn them into a paragraph) and brings none.
 */
export function wrapAsItem(text: string, firstKind: BlockKind, item: ItemInfo, blockText: string): FragmentBlock[] {
  const body = indentLines(text, ' '.repeat(item.marker.length + 1));
  const startsWithText = firstKind === 'paragraph' || firstKind === 'image';
  const keepCheckbox = item.checkbox >= 0 && startsWithText && !/^\[[ xX]\][ \t]/.test(text);
  const checkbox = keepCheckbox ? `[${blockText.charAt(item.checkbox + 1)}] ` : '';
  return fragmentFromText(`${item.marker} ${checkbox}${body}`);
}

/** The separator between items of the list of the block at i: a blank line when the list is loose, then its indentation. */
function itemSeparator(doc: WorkDoc, i: number): string {
  const x = blockAt(doc, i);
  const own = itemOf(x);
  // A sibling counts only if it is in the same list: same bullet, or same ordered delimiter.
  const sameList = (other: ItemInfo | null): boolean =>
    other !== null && own !== null && other.ordered === own.ordered && other.marker.slice(-1) === own.marker.slice(-1);
  let k = i - 1;
  while (k >= 0 && depthAt(doc, k) > x.depth) k--;
  let loose: boolean;
  if (k >= 0 && depthAt(doc, k) === x.depth && sameList(itemAt(doc, k))) loose = hasBlankLine(x.gap);
  else {
    const j = subtreeEnd(doc, i);
    loose = j < doc.entries.length && depthAt(doc, j) === x.depth && sameList(itemAt(doc, j)) && hasBlankLine(gapAt(doc, j));
  }
  return (loose ? doc.eol + doc.eol : doc.eol) + ' '.repeat(x.col);
}

function blankSeparator(doc: WorkDoc, col: number): string {
  return doc.eol + doc.eol + ' '.repeat(col);
}

function lastTopLevel(fragment: readonly FragmentBlock[]): FragmentBlock {
  for (let k = fragment.length - 1; k > 0; k--) if (fragment[k]!.depth === 0) return fragment[k]!;
  return fragment[0]!;
}
