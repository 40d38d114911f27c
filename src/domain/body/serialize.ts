import type { Segment } from './reparse.js';
import type { WorkDoc } from './work-doc.js';

/** Join the blocks into the new text, noting which stretches are copied unchanged from the base text. */
export function serialize(doc: WorkDoc): { text: string; segments: Segment[] } {
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
