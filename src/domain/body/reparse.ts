import { DEFAULT_WINDOW, extendLastUnit, finishBody, pushUnit, type ParsedBody, type Unit } from './blocks.js';
import { lineEndAfter } from './lines.js';
import { parseWindow, type Candidate } from './parse-window.js';
import { endsWithBlankLine, isFenced, restartsAfter, restartsAtUnit, settledCount } from './restarts.js';

/**
 * The incremental re-parse: an edited body is parsed again only around its
 * changes, reusing the old units elsewhere (units are cut where parsing
 * starts afresh, see blocks.ts).
 */

/** Text the new body copies from the old one ([start, end) ← [from, from + end - start)), or fresh text (from = -1). */
export interface Segment {
  readonly start: number;
  readonly end: number;
  readonly from: number;
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
    units.push(
      touched.has(k)
        ? { length: unit.length, blocks: unit.blocks.map(({ hash: _hash, firstChoice: _choice, firstCode: _code, firstChoiceKey: _key, ...block }) => block) }
        : unit,
    );
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

/** Whether q (new text) is copied from a point where an old unit starts and the old parse could restart. */
function isSafeOldBoundary(old: ParsedBody, segAt: (pos: number) => Segment, q: number): boolean {
  const seg = segAt(q);
  if (seg.from < 0 || q >= seg.end) return false;
  const k = unitStartingAt(old, seg.from + (q - seg.start));
  return k >= 0 && restartsAtUnit(old, k);
}
