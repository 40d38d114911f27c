import type { ListItem, Node, Paragraph, RootContent } from 'mdast';
import { parseMarkdown } from './markdown.js';

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
 * in one parse) and an edited body can be re-parsed only around its changes.
 */

/** What kind of Markdown block a block is. */
export type BlockKind =
  | 'heading'
  | 'paragraph'
  | 'image'
  | 'listItem'
  | 'code'
  | 'blockquote'
  | 'table'
  | 'thematicBreak'
  | 'html'
  | 'definition'
  | 'footnoteDefinition'
  | 'other';

/** List-item facts of a block. */
export interface ItemInfo {
  readonly ordered: boolean;
  /** The marker as written: "-", "*", "+", "3.", "12)". */
  readonly marker: string;
  /** Offset of the task checkbox's "[" from the block start, -1 when the item has none. */
  readonly checkbox: number;
}

/** One editable block, positioned within its unit. */
export interface Block {
  readonly kind: BlockKind;
  /** Offsets (UTF-16 code units) relative to the start of the block's unit. */
  readonly start: number;
  readonly end: number;
  /** 0 at top level; list nesting adds one per level. */
  readonly depth: number;
  readonly item: ItemInfo | null;
  /** The block's own text ends in an HTML block, which runs on over following lines until a blank line. */
  readonly endsInHtml?: true;
  /** Content hash, filled in lazily by the handle code; units are shared between versions, so it is computed once. */
  hash?: number;
  /** Memoised first-choice handle and the occurrence/length it was made for (see handles.ts). */
  firstChoice?: string;
  firstCode?: number;
  firstChoiceKey?: number;
}

/** An independently parseable stretch of text; shared, never mutated, between versions of a body. */
export interface Unit {
  readonly length: number;
  readonly blocks: readonly Block[];
}

/** A body cut into units and blocks. */
export interface ParsedBody {
  readonly text: string;
  readonly units: readonly Unit[];
  /** Absolute start offset of each unit; units tile the text without gaps. */
  readonly starts: readonly number[];
  readonly blockCount: number;
  /** Memoised handle data (see handles.ts). */
  handles?: readonly string[];
  handleIndex?: ReadonlyMap<string, number>;
  flat?: FlatBlocks;
}

/** All blocks of a body in document order, with absolute offsets (index i = block i). */
export interface FlatBlocks {
  readonly blocks: readonly Block[];
  readonly starts: readonly number[];
  readonly ends: readonly number[];
}

/** A block with absolute offsets, in document order. */
export interface PlacedBlock {
  readonly block: Block;
  readonly start: number;
  readonly end: number;
}

/** Text the new body copies from the old one ([start, end) ← [from, from + end - start)), or fresh text (from = -1). */
export interface Segment {
  readonly start: number;
  readonly end: number;
  readonly from: number;
}

/** Size of one parse window; windows grow when a single unit is larger. */
export const DEFAULT_WINDOW = 4096;

interface Candidate {
  readonly start: number;
  readonly blocks: readonly Block[];
}

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

/** Options for reparseBody. */
export interface ReparseOptions {
  /**
   * Old offsets of characters that changed without changing any block's
   * structure (a checkbox toggled): the segments count them as copied, and the
   * units holding them are reused with fresh blocks (their hashes are stale).
   */
  readonly touched?: readonly number[];
  readonly windowSize?: number;
}

/**
 * Parse `text`, the result of editing `old.text`, reusing old units wherever
 * the text around them is unchanged. Equivalent to parseBody(text).
 */
export function reparseBody(old: ParsedBody, text: string, segments: readonly Segment[], options: ReparseOptions = {}): ParsedBody {
  const windowSize = options.windowSize ?? DEFAULT_WINDOW;
  const touched = new Set<number>((options.touched ?? []).map((offset) => unitContaining(old, offset)));
  if (touched.size === 0 && segments.length === 1 && segments[0]!.from === 0 && text === old.text) return old;
  const units: Unit[] = [];
  const starts: number[] = [];
  const segAt = segmentFinder(segments);
  let p = 0;
  let guessed = -1;
  while (p < text.length) {
    const seg = segAt(p);
    let dirty = p;
    let guessItem = false;
    const before = units.length;
    const from = p;
    if (seg.from >= 0) {
      dirty = seg.end;
      const k = unitStartingAt(old, seg.from + (p - seg.start));
      if (k >= 0) {
        const oldEnd = seg.from + (seg.end - seg.start);
        if (seg.end === text.length && oldEnd === old.text.length) {
          copyUnits(old, k, old.units.length - 1, seg, touched, units, starts);
          break;
        }
        const kd = unitContaining(old, oldEnd);
        let last = kd - 2;
        if (canSkipMargin(old, text, seg, kd, oldEnd)) last = kd - 1;
        else if (kd - 1 >= k && guessed !== p && isTopLevelItem(old.units[kd - 1]!)) {
          // In a list, a changed item that still starts with an item leaves the item before it alone; check after parsing.
          last = kd - 1;
          guessItem = true;
        }
        while (last >= k && !restartsAtUnit(old, last + 1)) last--;
        if (last !== kd - 1) guessItem = false;
        if (last >= k) {
          copyUnits(old, k, last, seg, touched, units, starts);
          p = seg.start + (old.starts[last + 1]! - seg.from);
          if (p >= text.length) break;
        }
      }
    }
    const next = parseUntilSynced(old, text, segAt, p, dirty, windowSize, guessItem, units, starts);
    if (next < 0) {
      // The guess was wrong: take back what was copied and parse from the unit before too.
      units.length = before;
      starts.length = before;
      guessed = p = from;
      continue;
    }
    p = next;
  }
  if (units.length === 0 && text.length > 0) pushUnit(units, starts, 0, text.length, []);
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

/** Offset just past the first line ending at or after `pos` (or the text length). */
export function lineEndAfter(text: string, pos: number): number {
  for (let i = pos; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) return i + 1;
    if (c === 13) return text.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
  }
  return text.length;
}

/** Offset of the start of the line containing `pos`, not looking before `floor`. */
export function lineStartBefore(text: string, pos: number, floor = 0): number {
  let i = pos;
  while (i > floor) {
    const c = text.charCodeAt(i - 1);
    if (c === 10 || c === 13) break;
    i--;
  }
  return i;
}

function finishBody(text: string, units: Unit[], starts: number[]): ParsedBody {
  let blockCount = 0;
  for (const unit of units) blockCount += unit.blocks.length;
  return { text, units, starts, blockCount };
}

function pushUnit(units: Unit[], starts: number[], start: number, end: number, blocks: readonly Block[]): void {
  units.push({ length: end - start, blocks });
  starts.push(start);
}

/**
 * How many leading candidates of a window are final: all of them at the end
 * of the text, else those before the last point where parsing may restart.
 * The last candidate may still grow with text past the window.
 */
function settledCount(text: string, from: number, candidates: readonly Candidate[], atEnd: boolean): number {
  if (atEnd) return candidates.length;
  let k = candidates.length - 1;
  while (k > 0 && !restartsAfter(text, candidates[k - 1]!, candidates[k]!.start, from)) k--;
  return Math.max(k, 0);
}

const CONTAINERS: ReadonlySet<BlockKind> = new Set(['listItem', 'blockquote', 'footnoteDefinition']);

/**
 * Whether parsing text from `start` on its own gives what parsing it after
 * `previous` gives. micromark parses a line that follows an open paragraph,
 * definition or indented code as "interrupting" it, which rules out some
 * starts ("2." lists, empty items); indented code stays open across blank
 * lines. After a container (list item, quote, footnote) or after a blank
 * line following anything else, a line is parsed as at the start of a text,
 * with one exception: micromark marks the line right after a container as
 * "lazy", and on a lazy line indented code and a table head do not start as
 * they would (indented code is cut into one-line blocks, a table stays a
 * paragraph). A definition directly before may also still take a title from
 * the lines that follow, which a blank line rules out too.
 */
function restartsAfter(text: string, previous: Candidate, start: number, floor: number): boolean {
  const first = previous.blocks[0];
  if (!first) return false;
  if (CONTAINERS.has(first.kind)) return !startsDifferentlyWhenLazy(text, start) || endsWithBlankLine(text, start, floor);
  if (first.kind === 'code' && !isFenced(text, previous.start + first.start)) return false;
  return endsWithBlankLine(text, start, floor);
}

const DELIMITER_ROW = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-*:?[ \t]*)*(\r\n|\n|\r)?$/;

/** Whether the line at `pos` may be indented code, or a table head (a line with a pipe above a delimiter row). */
function startsDifferentlyWhenLazy(text: string, pos: number): boolean {
  const c = text.charCodeAt(pos);
  if (c === 9 || (c === 32 && text.startsWith('    ', pos))) return true;
  const next = lineEndAfter(text, pos);
  if (!text.slice(pos, next).includes('|')) return false;
  return DELIMITER_ROW.test(text.slice(next, lineEndAfter(text, next)));
}

function isFenced(text: string, pos: number): boolean {
  let i = pos;
  while (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9) i++;
  const c = text.charAt(i);
  return c === '`' || c === '~';
}

/** Parse text[from, to) and cut it into unit candidates with absolute starts. */
function parseWindow(text: string, from: number, to: number): Candidate[] {
  const tree = parseMarkdown(text.slice(from, to));
  const out: Candidate[] = [];
  const open = (nodeStart: number): number => (out.length === 0 ? from : lineStartBefore(text, nodeStart, from));
  let floor = 0;
  for (const node of tree.children) {
    if (node.type === 'list') {
      for (const item of node.children) {
        const start = open(from + startOf(item));
        const blocks: Block[] = [];
        collectItem(item, node.ordered === true, text, from, start, 0, blocks);
        out.push({ start, blocks });
      }
    } else {
      const start = open(from + ownStart(node, floor));
      const blocks: Block[] = [];
      collectNode(node, text, from, start, 0, blocks, floor);
      out.push({ start, blocks });
    }
    floor = endOf(node);
  }
  return out;
}

/**
 * Where a node's own text starts. A setext heading whose paragraph began with
 * link definitions is reported from the first definition on, overlapping
 * them; its own text starts at its first child.
 */
function ownStart(node: Node, floor: number): number {
  const start = startOf(node);
  if (start >= floor) return start;
  const first = (node as Node & { children?: Node[] }).children?.[0];
  return first ? Math.max(startOf(first), floor) : floor;
}

function collectNode(node: RootContent, text: string, base: number, unitStart: number, depth: number, out: Block[], floor = 0): void {
  if (node.type === 'list') {
    for (const item of node.children) collectItem(item, node.ordered === true, text, base, unitStart, depth, out);
    return;
  }
  out.push({
    kind: kindOf(node),
    start: base + ownStart(node, floor) - unitStart,
    end: base + endOf(node) - unitStart,
    depth,
    item: null,
    ...(node.type === 'html' ? { endsInHtml: true as const } : {}),
  });
}

function collectItem(item: ListItem, ordered: boolean, text: string, base: number, unitStart: number, depth: number, out: Block[]): void {
  const start = base + startOf(item);
  const marker = readMarker(text, start, ordered);
  const children = item.children;
  const firstList = children.findIndex((child) => child.type === 'list');
  let end: number;
  if (firstList === -1) end = base + endOf(item);
  else if (firstList > 0) end = base + endOf(children[firstList - 1]!);
  else end = start + marker.length;
  const first = children[0];
  const checkbox = item.checked != null && first ? findCheckbox(text, start + marker.length, base + startOf(first)) : -1;
  const lastOwn = children[(firstList === -1 ? children.length : firstList) - 1];
  out.push({
    kind: 'listItem',
    start: start - unitStart,
    end: end - unitStart,
    depth,
    item: { ordered, marker, checkbox: checkbox === -1 ? -1 : checkbox - start },
    ...(lastOwn?.type === 'html' ? { endsInHtml: true as const } : {}),
  });
  if (firstList === -1) return;
  for (let i = firstList; i < children.length; i++) collectNode(children[i]!, text, base, unitStart, depth + 1, out, i > 0 ? endOf(children[i - 1]!) : 0);
}

function kindOf(node: RootContent): BlockKind {
  switch (node.type) {
    case 'heading':
    case 'code':
    case 'blockquote':
    case 'table':
    case 'thematicBreak':
    case 'html':
    case 'definition':
    case 'footnoteDefinition':
      return node.type;
    case 'paragraph':
      return isImageOnly(node) ? 'image' : 'paragraph';
    default:
      return 'other';
  }
}

/**
 * A paragraph holding one inline image and nothing else. Reference images
 * ("![a][ref]") do not count: whether they are images depends on a definition
 * that may sit anywhere in the body, and a block's kind must not.
 */
function isImageOnly(node: Paragraph): boolean {
  let images = 0;
  for (const child of node.children) {
    if (child.type === 'image') images++;
    else if (!(child.type === 'text' && child.value.trim() === '')) return false;
  }
  return images === 1;
}

function readMarker(text: string, start: number, ordered: boolean): string {
  if (!ordered) return text.charAt(start);
  let i = start;
  while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
  return text.slice(start, i + 1);
}

/** The parser reports the task paragraph as starting after "[x] "; the checkbox is the last "[" before it. */
function findCheckbox(text: string, after: number, paragraphStart: number): number {
  const at = text.lastIndexOf('[', paragraphStart - 1);
  return at >= after && text.charAt(at + 2) === ']' ? at : -1;
}

function startOf(node: Node): number {
  const offset = node.position?.start.offset;
  if (offset === undefined) throw new Error(`parser gave a ${node.type} node without a position`);
  return offset;
}

function endOf(node: Node): number {
  const offset = node.position?.end.offset;
  if (offset === undefined) throw new Error(`parser gave a ${node.type} node without a position`);
  return offset;
}

// ---- incremental re-parse ------------------------------------------------

function segmentFinder(segments: readonly Segment[]): (pos: number) => Segment {
  let i = 0;
  return function segmentAt(pos: number): Segment {
    if (i >= segments.length || segments[i]!.start > pos) i = 0;
    while (i < segments.length - 1 && segments[i]!.end <= pos) i++;
    return segments[i]!;
  };
}

/** Index of the old unit starting exactly at `offset`, or -1. */
function unitStartingAt(body: ParsedBody, offset: number): number {
  const k = unitContaining(body, offset);
  return k >= 0 && body.starts[k] === offset ? k : -1;
}

/** Index of the last unit starting at or before `offset`. */
function unitContaining(body: ParsedBody, offset: number): number {
  const starts = body.starts;
  let lo = 0;
  let hi = starts.length - 1;
  if (hi < 0 || offset < starts[0]!) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function copyUnits(old: ParsedBody, from: number, to: number, seg: Segment, touched: ReadonlySet<number>, units: Unit[], starts: number[]): void {
  const shift = seg.start - seg.from;
  for (let k = from; k <= to; k++) {
    const unit = old.units[k]!;
    units.push(touched.has(k) ? { length: unit.length, blocks: unit.blocks.map(({ hash: _hash, firstChoice: _choice, firstCode: _code, firstChoiceKey: _key, ...block }) => block) } : unit);
    starts.push(old.starts[k]! + shift);
  }
}

/**
 * A change inside unit kd can end the unit before it only through kd's first
 * line (and the one after, which the parser peeks at for table heads). The
 * unit before is safe when the change starts past those lines, or when a
 * blank line precedes kd and kd's new first line starts at column 0: such a
 * line always begins a new top-level block.
 */
function canSkipMargin(old: ParsedBody, text: string, seg: Segment, kd: number, oldEnd: number): boolean {
  if (kd <= 0) return true;
  const unitStart = old.starts[kd]!;
  if (oldEnd >= lineEndAfter(old.text, lineEndAfter(old.text, unitStart))) return true;
  if (unitStart - 2 < seg.from) return false;
  if (!endsWithBlankLine(old.text, unitStart, seg.from)) return false;
  const c = text.charCodeAt(seg.start + (unitStart - seg.from));
  return !Number.isNaN(c) && c !== 32 && c !== 9 && c !== 10 && c !== 13;
}

/** Whether text just before `pos` is a line ending preceded by a whitespace-only line. */
function endsWithBlankLine(text: string, pos: number, floor: number): boolean {
  let i = pos;
  const takeLineEnding = (): boolean => {
    if (i > floor && text.charCodeAt(i - 1) === 10) {
      i--;
      if (i > floor && text.charCodeAt(i - 1) === 13) i--;
      return true;
    }
    if (i > floor && text.charCodeAt(i - 1) === 13) {
      i--;
      return true;
    }
    return false;
  };
  if (!takeLineEnding()) return false;
  while (i > floor && (text.charCodeAt(i - 1) === 32 || text.charCodeAt(i - 1) === 9)) i--;
  return i === 0 || takeLineEnding();
}

/**
 * Window-parse `text` from `p` (a point where parsing starts afresh) until a
 * unit boundary at or past `dirty` lands on copied text where the old body
 * also had a unit boundary; from there on the old units are valid again.
 * Returns that boundary (or the text length).
 */
function parseUntilSynced(
  old: ParsedBody,
  text: string,
  segAt: (pos: number) => Segment,
  p: number,
  dirty: number,
  windowSize: number,
  expectItem: boolean,
  units: Unit[],
  starts: number[],
): number {
  let from = p;
  let runEnd = dirty;
  while (runEnd < text.length && segAt(runEnd).from < 0) runEnd = segAt(runEnd).end;
  const quick = quickSync(old, text, segAt, from, runEnd, expectItem);
  if (quick !== null) {
    if (quick.expectationFailed) return -1;
    if (quick.candidates) {
      pushCandidatesUpTo(quick.candidates, quick.end, units, starts);
      return quick.end;
    }
  }
  let extra = 0;
  for (let first = true; ; first = false) {
    const near = lookaheadEnd(text, Math.max(runEnd, from));
    const to = extra === 0 ? near : lineEndAfter(text, near + extra);
    const candidates = parseWindow(text, from, to);
    if (first && expectItem && !startsWithTopLevelItem(candidates, p)) return -1;
    const atEnd = to >= text.length;
    const settled = settledCount(text, from, candidates, atEnd);
    if (candidates.length === 0) {
      // Blank tail: it belongs to the unit before it.
      extendLastUnit(units, starts, from, text.length);
      return text.length;
    }
    for (let i = 1; i <= settled && i < candidates.length; i++) {
      const q = candidates[i]!.start;
      if (q >= dirty && restartsAfter(text, candidates[i - 1]!, q, from) && isSafeOldBoundary(old, segAt, q)) {
        pushCandidates(candidates, 0, i, text, units, starts);
        return q;
      }
    }
    if (atEnd) {
      pushCandidates(candidates, 0, candidates.length, text, units, starts);
      return text.length;
    }
    // Not back in step yet: the change reaches further, so look further, doubling each time.
    extra = extra === 0 ? Math.min(256, windowSize) : extra * 2;
    if (settled === 0) continue;
    pushCandidates(candidates, 0, settled, text, units, starts);
    from = candidates[settled]!.start;
  }
}

/**
 * Most edits end where an old unit starts again. When nothing after the
 * changed text can reach back into it, the changed stretch is parsed alone,
 * up to that unit: after a blank line, a line at column 0 always starts a new
 * block, unless what comes before is still open (an unclosed fence or HTML
 * block, indented code); and a top-level list item always starts a new item
 * right after another top-level item. Both hold only where the old unit's
 * first line is still a whole line of the new text.
 */
function quickSync(
  old: ParsedBody,
  text: string,
  segAt: (pos: number) => Segment,
  from: number,
  runEnd: number,
  expectItem: boolean,
): { candidates?: readonly Candidate[]; end: number; expectationFailed?: true } | null {
  if (runEnd >= text.length) return null;
  const seg = segAt(runEnd);
  if (seg.from < 0) return null;
  const oldPos = seg.from + (runEnd - seg.start);
  let k = unitContaining(old, oldPos);
  if (k < 0 || old.starts[k]! < oldPos) k++;
  if (k >= old.units.length) return null;
  const end = seg.start + (old.starts[k]! - seg.from);
  if (end >= seg.end || end <= from || !restartsAtUnit(old, k)) return null;
  const c = text.charCodeAt(end);
  if (c === 32 || c === 9 || c === 10 || c === 13) return null;
  // The old unit started a line; copied to mid-line (a block moved in under an item) it starts nothing.
  const before = text.charCodeAt(end - 1);
  if (before !== 10 && before !== 13) return null;
  const blankBefore = endsWithBlankLine(text, end, from);
  const nextIsItem = isTopLevelItem(old.units[k]!) && old.units[k]!.blocks[0]!.start === 0;
  if (!blankBefore && !nextIsItem) return null;
  const candidates = parseWindow(text, from, end);
  if (expectItem && !startsWithTopLevelItem(candidates, from)) return { end, expectationFailed: true };
  const last = candidates[candidates.length - 1];
  if (!last) return null;
  const lastFirst = last.blocks[0];
  if (!lastFirst) return null;
  if (nextIsItem && lastFirst.kind === 'listItem' && lastFirst.depth === 0) return { candidates, end };
  if (!blankBefore || (lastFirst.kind === 'code' && !isFenced(text, last.start + lastFirst.start))) return null;
  // Closed: the last block ends before the blank lines (an open fence or HTML block runs through them).
  let contentEnd = end;
  while (contentEnd > from && /\s/.test(text.charAt(contentEnd - 1))) contentEnd--;
  for (const block of last.blocks) if (last.start + block.end > contentEnd) return null;
  return { candidates, end };
}

function isTopLevelItem(unit: Unit): boolean {
  const first = unit.blocks[0];
  return first !== undefined && first.kind === 'listItem' && first.depth === 0;
}

function startsWithTopLevelItem(candidates: readonly Candidate[], at: number): boolean {
  const first = candidates[0];
  const block = first?.blocks[0];
  return first !== undefined && first.start === at && block !== undefined && block.kind === 'listItem' && block.depth === 0 && block.start === 0;
}

function pushCandidatesUpTo(candidates: readonly Candidate[], end: number, units: Unit[], starts: number[]): void {
  for (let i = 0; i < candidates.length; i++) {
    const candidate = candidates[i]!;
    const next = i + 1 < candidates.length ? candidates[i + 1]!.start : end;
    pushUnit(units, starts, candidate.start, next, candidate.blocks);
  }
}

/**
 * End of a window that sees past `pos`: the rest of its line, any blank lines,
 * and two more lines: where the next block starts, and the line the parser
 * peeks at to decide whether that is a table.
 */
function lookaheadEnd(text: string, pos: number): number {
  let end = lineEndAfter(text, pos);
  while (end < text.length && isBlankLineAt(text, end)) end = lineEndAfter(text, end);
  return lineEndAfter(text, lineEndAfter(text, end));
}

function isBlankLineAt(text: string, pos: number): boolean {
  for (let i = pos; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) return true;
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}

function pushCandidates(candidates: readonly Candidate[], from: number, to: number, text: string, units: Unit[], starts: number[]): void {
  for (let i = from; i < to; i++) {
    const candidate = candidates[i]!;
    const next = i + 1 < candidates.length ? candidates[i + 1]!.start : text.length;
    pushUnit(units, starts, candidate.start, next, candidate.blocks);
  }
}

function extendLastUnit(units: Unit[], starts: number[], from: number, end: number): void {
  const last = units.length - 1;
  if (last < 0) {
    pushUnit(units, starts, from, end, []);
    return;
  }
  units[last] = { length: end - starts[last]!, blocks: units[last]!.blocks };
}

/** Whether q (new text) is copied from a point where an old unit starts and the old parse could restart. */
function isSafeOldBoundary(old: ParsedBody, segAt: (pos: number) => Segment, q: number): boolean {
  const seg = segAt(q);
  if (seg.from < 0 || q >= seg.end) return false;
  const k = unitStartingAt(old, seg.from + (q - seg.start));
  return k >= 0 && restartsAtUnit(old, k);
}

/** Whether parsing the body from unit k on its own gives the units the whole parse gave. */
function restartsAtUnit(body: ParsedBody, k: number): boolean {
  if (k === 0) return true;
  const previous = { start: body.starts[k - 1]!, blocks: body.units[k - 1]!.blocks };
  return restartsAfter(body.text, previous, body.starts[k]!, previous.start);
}
