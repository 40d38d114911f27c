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
