import { flatBlocks, type BlockKind, type FlatBlocks, type ItemInfo, type ParsedBody } from './blocks.js';
import { bodyVersion, parsedBody, rememberParsed } from './cache.js';
import { parseEdit, type BodyEdit } from './edits.js';
import {
  adoptListStyle,
  columnOf,
  countLineEndings,
  dedentLines,
  detectEol,
  fragmentFromMarkdown,
  fragmentFromText,
  fromLf,
  hasBlankLine,
  indentGap,
  indentLines,
  listStyleOf,
  normaliseMarkdown,
  shiftGap,
  splitGap,
  toLf,
  type Eol,
  type FragmentBlock,
} from './fragments.js';
import { handleIndexOf, handlesOf, stripHandles } from './handles.js';
import { editableOf, type EditableBody } from './read.js';
import { reparseBody, type Segment } from './reparse.js';

/** The new body, or why the edits were refused with the unchanged body and fresh handles. */
export type ApplyResult =
  | { ok: true; body: string; version: string; applied: string[] }
  | { ok: false; error: string; editIndex: number; body: string; version: string; editable: EditableBody };

/**
 * A block while a call's edits are applied. Edits change the array of these
 * and their strings; the text is only put together, and re-parsed around the
 * changes, once all edits succeeded.
 */
interface WorkBlock {
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

interface WorkDoc {
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

type Where = { at: 'before' | 'after'; block: WorkBlock } | { at: 'start' | 'end' };

class Refusal {
  constructor(readonly message: string) {}
}

/** Apply edits in order, all or nothing; a refusal returns the original body with fresh handles. */
export function applyEdits(body: string, edits: BodyEdit[]): ApplyResult {
  const version = bodyVersion(body);
  const parsed = parsedBody(body, version);
  const refuse = (error: string, editIndex: number): ApplyResult => ({
    ok: false,
    error,
    editIndex,
    body,
    version,
    editable: editableOf(parsed, version),
  });
  if (!Array.isArray(edits)) return refuse('edits must be an array of edit objects.', 0);
  const doc = workDocOf(body, parsed, handleIndexOf(parsed), handlesOf(parsed));
  const applied: string[] = [];
  for (let n = 0; n < edits.length; n++) {
    const edit = parseEdit(edits[n]);
    if (typeof edit === 'string') return refuse(edit, n);
    try {
      applied.push(applyOne(doc, edit, n, version));
    } catch (err) {
      if (err instanceof Refusal) return refuse(err.message, n);
      throw err;
    }
  }
  const { text, segments } = serialize(doc);
  if (text === body) return { ok: true, body, version, applied };
  const newVersion = bodyVersion(text);
  // Parse now, around the changes only, so the next read or edit of this body finds it parsed.
  rememberParsed(text === doc.base.text ? doc.base : reparseBody(doc.base, text, segments, { touched: doc.touched }), newVersion);
  return { ok: true, body: text, version: newVersion, applied };
}

function applyOne(doc: WorkDoc, edit: BodyEdit, n: number, version: string): string {
  switch (edit.op) {
    case 'replace':
      return replaceBlock(doc, resolve(doc, edit.handle), edit.handle, edit.markdown, n);
    case 'insert': {
      const fragment = fragmentFromMarkdown(edit.markdown);
      if (!fragment) throw new Refusal('markdown is empty once handles are removed; give the Markdown to insert.');
      const count = plural(fragment.length, 'block');
      if ('handle' in edit) {
        placeFragment(doc, fragment, { at: edit.position, block: resolve(doc, edit.handle) });
        return `inserted ${count} ${edit.position} ${edit.handle}`;
      }
      placeFragment(doc, fragment, { at: edit.position });
      return `inserted ${count} at the ${edit.position}`;
    }
    case 'delete':
      return deleteBlock(doc, resolve(doc, edit.handle), edit.handle, n);
    case 'setChecked':
      return setChecked(doc, resolve(doc, edit.handle), edit.handle, edit.checked);
    case 'move':
      return moveBlock(doc, edit);
    case 'replaceText':
      return replaceText(doc, resolve(doc, edit.handle), edit.handle, edit.find, edit.replace);
    case 'rewrite':
      return rewrite(doc, edit.baseVersion, edit.markdown, n, version);
  }
}

// ---- the edits ----------------------------------------------------------

function replaceBlock(doc: WorkDoc, x: WorkBlock, handle: string, markdown: string, n: number): string {
  let fragment = fragmentFromMarkdown(markdown);
  if (!fragment) throw new Refusal('markdown is empty once handles are removed; use delete to remove a block.');
  const item = itemOf(x);
  if (item) {
    // An item replaced by plain text stays an item of the same list, keeping its checkbox.
    if (!fragment[0]!.item) fragment = wrapAsItem(normaliseMarkdown(markdown), fragment[0]!.kind, item, x.text);
    adoptListStyle(fragment, listStyleOf(item, 0));
  }
  const i = positionOf(doc, x);
  const placed = place(doc, fragment, x.col, x.depth);
  const first = placed[0]!;
  // Blank lines around a replaced non-item keep the new text from merging with its neighbours.
  if (!item && i > 0 && !hasBlankLine(x.gap)) first.gap = doc.eol + x.gap;
  else {
    first.gap = x.gap;
    first.srcGap = x.srcGap;
  }
  // Nested items stay under a replaced item; an HTML block ending the new text would swallow them without a blank line.
  const nested = item !== null && i + 1 < doc.entries.length && depthAt(doc, i + 1) > x.depth;
  if ((!item || (nested && placed[placed.length - 1]!.endsInHtml)) && i + 1 < doc.entries.length && !hasBlankLine(gapAt(doc, i + 1))) {
    const next = blockAt(doc, i + 1);
    setGap(next, doc.eol + next.gap);
  }
  doc.entries.splice(i, 1, ...placed);
  x.gone = `Handle "${handle}" was replaced by edit ${n} of this call; put every change to that block into the one replace.`;
  return placed.length > 1 ? `replaced ${handle} with ${placed.length} blocks` : `replaced ${handle}`;
}

function deleteBlock(doc: WorkDoc, x: WorkBlock, handle: string, n: number): string {
  const i = positionOf(doc, x);
  const removed = removeRange(doc, i, subtreeEnd(doc, i));
  for (const block of removed) {
    const parent = block === x ? '' : ` together with its parent "${handle}"`;
    block.gone = `Handle "${block.handle}" was deleted by edit ${n} of this call${parent}; leave it out or read the body again.`;
  }
  const nested = removed.length - 1;
  return nested > 0 ? `deleted ${handle} and ${plural(nested, 'nested block')}` : `deleted ${handle}`;
}

function setChecked(doc: WorkDoc, x: WorkBlock, handle: string, checked: boolean): string {
  const item = itemOf(x);
  if (!item || item.checkbox < 0) {
    throw new Refusal(`Block "${handle}" is not a task list item (it has no "[ ]" checkbox); use replace to turn it into one.`);
  }
  const at = item.checkbox + 1;
  const mark = x.text.charAt(at);
  const word = checked ? 'checked' : 'unchecked';
  if ((mark === 'x' || mark === 'X') === checked) return `${handle} was already ${word}`;
  x.text = x.text.slice(0, at) + (checked ? 'x' : ' ') + x.text.slice(at + 1);
  // Still counted as copied text: a toggled checkbox changes no block boundaries.
  if (x.srcText >= 0) doc.touched.push(x.srcText + at);
  return `${word} ${handle}`;
}

function moveBlock(doc: WorkDoc, edit: Extract<BodyEdit, { op: 'move' }>): string {
  const x = resolve(doc, edit.handle);
  const target = edit.position === 'before' || edit.position === 'after' ? resolve(doc, edit.target) : null;
  const where = edit.position === 'before' || edit.position === 'after' ? `${edit.position} ${edit.target}` : `to the ${edit.position}`;
  if (target === x) throw new Refusal(`Cannot move "${edit.handle}" relative to itself; pick another block as target.`);
  const i = positionOf(doc, x);
  const j = subtreeEnd(doc, i);
  const t = target ? positionOf(doc, target) : -1;
  if (t >= i && t < j) {
    throw new Refusal(`Cannot move "${edit.handle}" ${where}, which is nested inside it; pick a target outside the moved block.`);
  }
  const moving: WorkBlock[] = [];
  for (let k = i; k < j; k++) moving.push(blockAt(doc, k));
  const fragment = fragmentFromBlocks(moving);
  removeRange(doc, i, j);
  placeFragment(doc, fragment, target ? { at: edit.position as 'before' | 'after', block: target } : { at: edit.position as 'start' | 'end' }, moving);
  const nested = moving.length > 1 ? ` with ${plural(moving.length - 1, 'nested block')}` : '';
  return `moved ${edit.handle}${nested} ${where}`;
}

function replaceText(doc: WorkDoc, x: WorkBlock, handle: string, findRaw: string, replaceRaw: string): string {
  const find = fromLf(toLf(stripHandles(findRaw)), doc.eol);
  const replacement = fromLf(toLf(stripHandles(replaceRaw)), doc.eol);
  if (find === '') throw new Refusal('find is empty once handles are removed; copy the text to change from the block.');
  let count = 0;
  let at = -1;
  for (let k = x.text.indexOf(find); k !== -1; k = x.text.indexOf(find, k + 1)) {
    if (count === 0) at = k;
    count++;
  }
  if (count === 0) {
    throw new Refusal(`The find text does not occur in block "${handle}"; copy it exactly from the block as read, without the handle.`);
  }
  if (count > 1) {
    throw new Refusal(`The find text occurs ${count} times in block "${handle}"; include more of the surrounding text so it matches exactly once.`);
  }
  const text = x.text.slice(0, at) + replacement + x.text.slice(at + find.length);
  if (text.trim() === '') throw new Refusal(`That replacement would leave block "${handle}" empty; use delete to remove a block.`);
  x.text = text;
  x.srcText = -1;
  x.stale = true;
  return `replaced text in ${handle}`;
}

function rewrite(doc: WorkDoc, baseVersion: string, markdown: string, n: number, version: string): string {
  if (baseVersion !== version) {
    throw new Refusal(`baseVersion "${baseVersion}" is not the current version "${version}"; read the body again and base the rewrite on what you read.`);
  }
  let text = stripHandles(markdown);
  // A body that has line endings keeps its style; an empty or one-line body takes the new text's.
  if (/[\r\n]/.test(doc.original)) text = fromLf(toLf(text), doc.eol);
  const fresh = workDocOf(doc.original, parsedBody(text), new Map(), []);
  doc.base = fresh.base;
  doc.flat = fresh.flat;
  doc.entries = fresh.entries;
  doc.tail = fresh.tail;
  doc.srcTail = fresh.srcTail;
  doc.made = fresh.made;
  doc.touched = [];
  doc.rewrittenBy = n;
  return 'rewrote the whole body';
}

// ---- placing and removing blocks ------------------------------------------

/**
 * Put fragment blocks next to a block or at an end of the body. Items next to
 * an item join its list (same marker, same spacing); anything else is kept
 * apart from its neighbours by blank lines, at the neighbour's indentation.
 * `origins` are the blocks a move carries, which keep their identity.
 */
function placeFragment(doc: WorkDoc, fragment: FragmentBlock[], where: Where, origins?: WorkBlock[]): void {
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
function place(doc: WorkDoc, fragment: readonly FragmentBlock[], col: number, depth: number, origins?: WorkBlock[]): WorkBlock[] {
  const prefix = ' '.repeat(col);
  return fragment.map((f, k) => {
    const text = fromLf(indentLines(f.text, prefix), doc.eol);
    const gap = k === 0 ? '' : fromLf(indentGap(f.gap, prefix), doc.eol);
    const origin = origins?.[k];
    if (!origin) {
      return { handle: null, kind: f.kind, depth: depth + f.depth, col: col + f.col, item: f.item, endsInHtml: f.endsInHtml, stale: false, text, gap, srcText: -1, srcGap: -1, gone: null };
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
function removeRange(doc: WorkDoc, i: number, j: number): WorkBlock[] {
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
function fragmentFromBlocks(blocks: readonly WorkBlock[]): FragmentBlock[] {
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
function wrapAsItem(text: string, firstKind: BlockKind, item: ItemInfo, blockText: string): FragmentBlock[] {
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

function setGap(block: WorkBlock, gap: string): void {
  if (block.gap === gap) return;
  block.gap = gap;
  block.srcGap = -1;
}

function subtreeEnd(doc: WorkDoc, i: number): number {
  const depth = depthAt(doc, i);
  let j = i + 1;
  while (j < doc.entries.length && depthAt(doc, j) > depth) j++;
  return j;
}

function lastTopLevel(fragment: readonly FragmentBlock[]): FragmentBlock {
  for (let k = fragment.length - 1; k > 0; k--) if (fragment[k]!.depth === 0) return fragment[k]!;
  return fragment[0]!;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

// ---- entries, blocks and handles ------------------------------------------

function workDocOf(original: string, parsed: ParsedBody, handleIndex: ReadonlyMap<string, number>, handles: readonly string[]): WorkDoc {
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
function blockAt(doc: WorkDoc, p: number): WorkBlock {
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

function depthAt(doc: WorkDoc, p: number): number {
  const entry = doc.entries[p]!;
  return typeof entry === 'number' ? doc.flat.blocks[entry]!.depth : entry.depth;
}

function itemAt(doc: WorkDoc, p: number): ItemInfo | null {
  const entry = doc.entries[p]!;
  return typeof entry === 'number' ? doc.flat.blocks[entry]!.item : itemOf(entry);
}

function gapAt(doc: WorkDoc, p: number): string {
  const entry = doc.entries[p]!;
  if (typeof entry !== 'number') return entry.gap;
  const gapStart = entry > 0 ? doc.flat.ends[entry - 1]! : 0;
  return doc.base.text.slice(gapStart, doc.flat.starts[entry]!);
}

function positionOf(doc: WorkDoc, block: WorkBlock): number {
  const p = doc.entries.indexOf(block);
  if (p === -1) throw new Error('work block is not in the document');
  return p;
}

function resolve(doc: WorkDoc, handle: string): WorkBlock {
  if (doc.rewrittenBy >= 0) {
    throw new Refusal(`Edit ${doc.rewrittenBy} rewrote the whole body, so handle "${handle}" no longer exists; make handle edits in a separate call after reading again.`);
  }
  const index = doc.handleIndex.get(handle);
  if (index === undefined) {
    throw new Refusal(`Handle "${handle}" is not in the current body (it was changed or removed since you read it); read the body again and use the fresh handles.`);
  }
  const made = doc.made.get(index);
  if (made) {
    if (made.gone) throw new Refusal(made.gone);
    return made;
  }
  return blockAt(doc, doc.entries.indexOf(index));
}

/** List-item facts of a block, derived again if an edit changed its text. */
function itemOf(block: WorkBlock): ItemInfo | null {
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

// ---- output -------------------------------------------------------------

/** Join the blocks into the new text, noting which stretches are copied unchanged from the base text. */
function serialize(doc: WorkDoc): { text: string; segments: Segment[] } {
  const base = doc.base.text;
  const ends = doc.flat.ends;
  const parts: string[] = [];
  const segments: { start: number; end: number; from: number }[] = [];
  let pos = 0;
  const add = (piece: string, src: number): void => {
    if (piece === '') return;
    const last = segments[segments.length - 1];
    const from = src >= 0 ? src : -1;
    if (last && ((from >= 0 && last.from >= 0 && last.from + (last.end - last.start) === from) || (from < 0 && last.from < 0))) {
      last.end += piece.length;
    } else {
      segments.push({ start: pos, end: pos + piece.length, from });
    }
    parts.push(piece);
    pos += piece.length;
  };
  // Untouched blocks that follow each other in the base text are copied as one slice.
  let runStart = -1;
  let runEnd = -1;
  const flush = (): void => {
    if (runEnd >= 0) add(base.slice(runStart, runEnd), runStart);
    runEnd = -1;
  };
  for (const entry of doc.entries) {
    if (typeof entry === 'number') {
      const gapStart = entry > 0 ? ends[entry - 1]! : 0;
      if (runEnd !== gapStart || runEnd < 0) {
        flush();
        runStart = gapStart;
      }
      runEnd = ends[entry]!;
      continue;
    }
    flush();
    add(entry.gap, entry.srcGap);
    add(entry.text, entry.srcText);
  }
  flush();
  add(doc.tail, doc.srcTail);
  return { text: parts.join(''), segments };
}
