import { flatBlocks, type BlockKind, type FlatBlocks, type ItemInfo, type ParsedBody } from './blocks.js';
import { columnOf, countLineEndings, dedentLines, detectEol, fragmentFromText, toLf, type Eol } from './fragments.js';

/**
 * A block while a call's edits are applied. Edits change the array of these
 * and their strings; the text is only put together, and re-parsed around the
 * changes, once all edits succeeded.
 */
export interface WorkBlock {
  /** Handle in the body the call started from (null for blocks the call created). */
  readonly handle: string | null;
  kind: BlockKind;
  depth: number;
  /** Column the block starts at; its continuation lines are indented relative to it. */
  col: number;
  item: ItemInfo | null;
  endsInHtml: boolean;
  /** `text` changed since kind and item were derived; derive them again before use. */
  stale: boolean;
  text: string;
  /** Text between the previous block (or the body start) and this one. */
  gap: string;
  /** Where `text` / `gap` are copied from in the base text, -1 once changed. */
  srcText: number;
  srcGap: number;
  /** Why the handle can no longer be used in this call. */
  gone: string | null;
}

/** A block of the base text that no edit has touched yet is held as its index, to keep big bodies cheap. */
type Entry = WorkBlock | number;

export interface WorkDoc {
  /** The body the call started from. */
  readonly original: string;
  /** The parsed text that indices and `src*` offsets point into: the original, or a rewrite's text. */
  base: ParsedBody;
  flat: FlatBlocks;
  readonly eol: Eol;
  entries: Entry[];
  /** Text after the last block (all of it when there are no blocks). */
  tail: string;
  srcTail: number;
  /** Work blocks made from base blocks so far, by base index. */
  made: Map<number, WorkBlock>;
  readonly handleIndex: ReadonlyMap<string, number>;
  readonly handles: readonly string[];
  /** Index of an edit that rewrote the whole body, -1 if none did. */
  rewrittenBy: number;
  /** Base offsets of characters changed without changing block structure (see reparseBody). */
  touched: number[];
}

/** Thrown by an edit to refuse the whole call with a sentence for the caller; any other error is a bug. */
export class Refusal {
  constructor(readonly message: string) {}
}

export function setGap(block: WorkBlock, gap: string): void {
  if (block.gap === gap) return;
  block.gap = gap;
  block.srcGap = -1;
}

export function subtreeEnd(doc: WorkDoc, i: number): number {
  const depth = depthAt(doc, i);
  let j = i + 1;
  while (j < doc.entries.length && depthAt(doc, j) > depth) j++;
  return j;
}

export function workDocOf(original: string, parsed: ParsedBody, handleIndex: ReadonlyMap<string, number>, handles: readonly string[]): WorkDoc {
  const flat = flatBlocks(parsed);
  const count = flat.blocks.length;
  const entries: Entry[] = new Array<Entry>(count);
  for (let i = 0; i < count; i++) entries[i] = i;
  const lastEnd = count > 0 ? flat.ends[count - 1]! : 0;
  return {
    original,
    base: parsed,
    flat,
    eol: detectEol(original),
    entries,
    tail: parsed.text.slice(lastEnd),
    srcTail: lastEnd,
    made: new Map(),
    handleIndex,
    handles,
    rewrittenBy: -1,
    touched: [],
  };
}

/** The work block at position p, made from its base block if no edit has touched it yet. */
export function blockAt(doc: WorkDoc, p: number): WorkBlock {
  const entry = doc.entries[p];
  if (entry === undefined) throw new Error(`no block at position ${p}`);
  if (typeof entry !== 'number') return entry;
  const { blocks, starts, ends } = doc.flat;
  const block = blocks[entry]!;
  const start = starts[entry]!;
  const gapStart = entry > 0 ? ends[entry - 1]! : 0;
  const text = doc.base.text;
  const made: WorkBlock = {
    handle: doc.rewrittenBy < 0 ? (doc.handles[entry] ?? null) : null,
    kind: block.kind,
    depth: block.depth,
    col: columnOf(text, start),
    item: block.item,
    endsInHtml: block.endsInHtml === true,
    stale: false,
    text: text.slice(start, ends[entry]!),
    gap: text.slice(gapStart, start),
    srcText: start,
    srcGap: gapStart,
    gone: null,
  };
  doc.entries[p] = made;
  doc.made.set(entry, made);
  return made;
}

export function depthAt(doc: WorkDoc, p: number): number {
  const entry = doc.entries[p]!;
  return typeof entry === 'number' ? doc.flat.blocks[entry]!.depth : entry.depth;
}

export function itemAt(doc: WorkDoc, p: number): ItemInfo | null {
  const entry = doc.entries[p]!;
  return typeof entry === 'number' ? doc.flat.blocks[entry]!.item : itemOf(entry);
}

export function gapAt(doc: WorkDoc, p: number): string {
  const entry = doc.entries[p]!;
  if (typeof entry !== 'number') return entry.gap;
  const gapStart = entry > 0 ? doc.flat.ends[entry - 1]! : 0;
  return doc.base.text.slice(gapStart, doc.flat.starts[entry]!);
}

export function positionOf(doc: WorkDoc, block: WorkBlock): number {
  const p = doc.entries.indexOf(block);
  if (p === -1) throw new Error('work block is not in the document');
  return p;
}

export function resolve(doc: WorkDoc, handle: string): WorkBlock {
  if (doc.rewrittenBy >= 0) {
    throw new Refusal(
      `Edit ${doc.rewrittenBy} rewrote the whole body, so handle "${handle}" no longer exists; make handle edits in a separate call after reading again.`,
    );
  }
  const index = doc.handleIndex.get(handle);
  if (index === undefined) {
    throw new Refusal(
      `Handle "${handle}" is not in the current body (it was changed or removed since you read it); read the body again and use the fresh handles.`,
    );
  }
  const made = doc.made.get(index);
  if (made) {
    if (made.gone) throw new Refusal(made.gone);
    return made;
  }
  return blockAt(doc, doc.entries.indexOf(index));
}

/** List-item facts of a block, derived again if an edit changed its text. */
export function itemOf(block: WorkBlock): ItemInfo | null {
  if (!block.stale) return block.item;
  const dedented = dedentLines(toLf(block.text), block.col);
  const first = fragmentFromText(dedented)[0];
  block.kind = first?.kind ?? 'paragraph';
  block.endsInHtml = first?.endsInHtml ?? false;
  block.item = first?.item ? { ...first.item, checkbox: mapOffset(dedented, block.text, first.item.checkbox) } : null;
  block.stale = false;
  return block.item;
}

/** Map an offset in a dedented "\n" copy of a block back to the block's own text. */
function mapOffset(dedented: string, original: string, offset: number): number {
  if (offset < 0) return -1;
  const lineIndex = countLineEndings(dedented.slice(0, offset));
  const column = offset - (dedented.lastIndexOf('\n', offset - 1) + 1);
  const dedentedLine = dedented.split('\n')[lineIndex] ?? '';
  let start = 0;
  for (let line = 0; line < lineIndex; line++) {
    const lf = original.indexOf('\n', start);
    const cr = original.indexOf('\r', start);
    const end = cr !== -1 && (lf === -1 || cr < lf) ? cr : lf;
    start = original.charCodeAt(end) === 13 && original.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
  }
  let lineEnd = start;
  while (lineEnd < original.length && original.charCodeAt(lineEnd) !== 10 && original.charCodeAt(lineEnd) !== 13) lineEnd++;
  return start + (lineEnd - start - dedentedLine.length) + column;
}
