import { parseBody, placedBlocks, type BlockKind, type ItemInfo } from './blocks.js';
import { lineStartBefore } from './lines.js';
import { stripHandles } from './handles.js';

/**
 * Fragments: Markdown that an edit brings in (new text, or a block moved
 * elsewhere), held with "\n" line endings and its top level at column 0, so
 * it can be indented to wherever it lands and written with the body's line
 * endings.
 */

/** A line ending. */
export type Eol = '\n' | '\r\n' | '\r';

/** One block of a fragment. */
export interface FragmentBlock {
  /** Own text, "\n" line endings, continuation lines relative to the fragment's column 0. */
  text: string;
  /** Text between the previous fragment block and this one ("" for the first). */
  gap: string;
  /** Depth relative to the fragment's top level. */
  depth: number;
  /** Column of the block's first character within the fragment. */
  col: number;
  kind: BlockKind;
  item: ItemInfo | null;
  /** Its text ends in an HTML block, which would run on into a directly following line. */
  endsInHtml: boolean;
}

/** What items joining a list must look like: its marker style and the number to continue from. */
export interface ListStyle {
  readonly ordered: boolean;
  /** Bullet character, or the delimiter ("." or ")") of an ordered list. */
  readonly mark: string;
  readonly number: number;
}

/** The body's line ending: the first one it uses, "\n" for a body without any. */
export function detectEol(text: string): Eol {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) return '\n';
    if (c === 13) return text.charCodeAt(i + 1) === 10 ? '\r\n' : '\r';
  }
  return '\n';
}

/** Normalise every line ending to "\n". */
export function toLf(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/** Write "\n" line endings as `eol`. */
export function fromLf(text: string, eol: Eol): string {
  return eol === '\n' || !text.includes('\n') ? text : text.replace(/\n/g, eol);
}

/** Number of line endings in a piece of text (CRLF counts once). */
export function countLineEndings(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) n++;
    else if (c === 13 && text.charCodeAt(i + 1) !== 10) n++;
  }
  return n;
}

/** A gap with two or more line endings contains a blank line, which ends paragraphs and separates blocks. */
export function hasBlankLine(gap: string): boolean {
  return countLineEndings(gap) >= 2;
}

/** Split a gap into its line endings part and the indentation after the last one. */
export function splitGap(gap: string): { lines: string; indent: string } {
  let i = gap.length;
  while (i > 0) {
    const c = gap.charCodeAt(i - 1);
    if (c === 10 || c === 13) break;
    i--;
  }
  return { lines: gap.slice(0, i), indent: gap.slice(i) };
}

/** Display column of `pos` (tabs to multiples of 4), counting from its line start. */
export function columnOf(text: string, pos: number): number {
  let col = 0;
  for (let i = lineStartBefore(text, pos); i < pos; i++) col = text.charCodeAt(i) === 9 ? col + 4 - (col % 4) : col + 1;
  return col;
}

/** Prefix every non-empty line after the first with `prefix` ("\n" text). */
export function indentLines(text: string, prefix: string): string {
  if (prefix === '' || !text.includes('\n')) return text;
  return text.replace(/\n(?=[^\n])/g, `\n${prefix}`);
}

/** Prefix the last line of a gap (the indentation of the block that follows) with `prefix` ("\n" text). */
export function indentGap(gap: string, prefix: string): string {
  if (prefix === '') return gap;
  const at = gap.lastIndexOf('\n');
  return at === -1 ? gap : gap.slice(0, at + 1) + prefix + gap.slice(at + 1);
}

/** Remove up to `width` columns of leading whitespace from every line after the first ("\n" text). */
export function dedentLines(text: string, width: number): string {
  if (width <= 0 || !text.includes('\n')) return text;
  const lines = text.split('\n');
  for (let i = 1; i < lines.length; i++) lines[i] = removeColumns(lines[i]!, width);
  return lines.join('\n');
}

/** Remove up to `width` columns of leading whitespace; a tab straddling the limit leaves its remainder as spaces. */
export function removeColumns(line: string, width: number): string {
  let col = 0;
  let i = 0;
  while (col < width && i < line.length) {
    const c = line.charCodeAt(i);
    if (c === 32) col++;
    else if (c === 9) {
      const next = col + 4 - (col % 4);
      if (next > width) return ' '.repeat(next - width) + line.slice(i + 1);
      col = next;
    } else break;
    i++;
  }
  return line.slice(i);
}

/** Shift lines after the first by `delta` columns (positive: indent, negative: dedent). */
export function shiftLines(text: string, delta: number): string {
  return delta >= 0 ? indentLines(text, ' '.repeat(delta)) : dedentLines(text, -delta);
}

/** Shift the indentation line of a gap by `delta` columns. */
export function shiftGap(gap: string, delta: number): string {
  if (delta >= 0) return indentGap(gap, ' '.repeat(delta));
  const at = gap.lastIndexOf('\n');
  return at === -1 ? gap : gap.slice(0, at + 1) + removeColumns(gap.slice(at + 1), -delta);
}

/**
 * Turn an edit's markdown into fragment blocks: handles stripped, line
 * endings normalised, surrounding blank lines and common indentation removed.
 * Returns null when nothing is left.
 */
export function fragmentFromMarkdown(markdown: string): FragmentBlock[] | null {
  const text = normaliseMarkdown(markdown);
  return text === '' ? null : fragmentFromText(text);
}

/** Handles stripped, "\n" line endings, no leading blank lines or trailing whitespace, common indentation removed. */
export function normaliseMarkdown(markdown: string): string {
  let text = toLf(stripHandles(markdown))
    .replace(/^(?:[ \t]*\n)+/, '')
    .trimEnd();
  const lines = text.split('\n');
  let common = Infinity;
  for (const line of lines) {
    if (line.trim() === '') continue;
    common = Math.min(common, columnOf(line, line.length - line.trimStart().length));
  }
  if (common > 0 && common !== Infinity) text = lines.map((line) => removeColumns(line, common)).join('\n');
  return text;
}

/** Parse normalised fragment text into blocks. */
export function fragmentFromText(text: string): FragmentBlock[] {
  const out: FragmentBlock[] = [];
  let prevEnd = 0;
  for (const placed of placedBlocks(parseBody(text))) {
    out.push({
      text: text.slice(placed.start, placed.end),
      gap: out.length === 0 ? '' : text.slice(prevEnd, placed.start),
      depth: placed.block.depth,
      col: columnOf(text, placed.start),
      kind: placed.block.kind,
      item: placed.block.item,
      endsInHtml: placed.block.endsInHtml === true,
    });
    prevEnd = placed.end;
  }
  return out;
}

/** The list style of an item, continuing from its number (for ordered lists). */
export function listStyleOf(item: ItemInfo, numberOffset: number): ListStyle {
  if (!item.ordered) return { ordered: false, mark: item.marker, number: 0 };
  return { ordered: true, mark: item.marker.slice(-1), number: Number.parseInt(item.marker, 10) + numberOffset };
}

/**
 * Give the fragment's leading top-level items the list's marker, so they join
 * that list instead of starting a new one (a different bullet or delimiter
 * starts a new list in Markdown). Content under an item moves with its marker.
 */
export function adoptListStyle(fragment: FragmentBlock[], style: ListStyle): void {
  let n = 0;
  for (let k = 0; k < fragment.length; k++) {
    const block = fragment[k]!;
    if (block.depth !== 0) continue;
    if (!block.item) break;
    const marker = style.ordered ? `${Math.max(style.number + n, 0)}${style.mark}` : style.mark;
    n++;
    const delta = marker.length - block.item.marker.length;
    block.text = marker + shiftLines(block.text.slice(block.item.marker.length), delta);
    block.item = {
      ordered: style.ordered,
      marker,
      checkbox: block.item.checkbox < 0 ? -1 : block.item.checkbox + delta,
    };
    if (delta === 0) continue;
    for (let d = k + 1; d < fragment.length && fragment[d]!.depth > 0; d++) {
      const nested = fragment[d]!;
      nested.text = shiftLines(nested.text, delta);
      nested.gap = shiftGap(nested.gap, delta);
      nested.col = Math.max(nested.col + delta, 0);
    }
  }
}
