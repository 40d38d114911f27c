import type { BlockKind, ParsedBody } from './block-types.js';
import { lineEndAfter } from './lines.js';
import type { Candidate } from './parse-window.js';

// Unit boundaries, shared by the whole parse and the re-parse: a body may only be cut where Markdown's block parsing
// starts afresh, or a window's parse would differ from the whole text's.

/**
 * How many leading candidates of a window are final: all of them at the end
 * of the text, else those before the last point where parsing may restart.
 * The last candidate may still grow with text past the window.
 */
export function settledCount(text: string, from: number, candidates: readonly Candidate[], atEnd: boolean): number {
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
export function restartsAfter(text: string, previous: Candidate, start: number, floor: number): boolean {
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

export function isFenced(text: string, pos: number): boolean {
  let i = pos;
  while (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9) i++;
  const c = text.charAt(i);
  return c === '`' || c === '~';
}

/** Whether text just before `pos` is a line ending preceded by a whitespace-only line. */
export function endsWithBlankLine(text: string, pos: number, floor: number): boolean {
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

/** Whether parsing the body from unit k on its own gives the units the whole parse gave. */
export function restartsAtUnit(body: ParsedBody, k: number): boolean {
  if (k === 0) return true;
  const previous = { start: body.starts[k - 1]!, blocks: body.units[k - 1]!.blocks };
  return restartsAfter(body.text, previous, body.starts[k]!, previous.start);
}
