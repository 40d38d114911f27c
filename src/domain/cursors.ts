/**
 * Opaque paging cursors (`nextCursor` / `cursor`): the position after the last row of a page,
 * as base64url JSON `{k: kind, p: position}`. A cursor holds the sort key of that row, not its
 * offset, so rows written or deleted meanwhile shift nothing: the next page starts right after
 * the row the previous one ended with.
 * @see docs/conventions.md (Paging)
 */
import { invalid } from '../core/errors.js';

/** Which read a cursor continues; a cursor of one kind is refused by another. */
export type CursorKind = `items:${string}` | 'feed' | 'trash' | 'runs' | 'messages';

/** The cursor after a row whose position is `position` (JSON values, e.g. exact timestamps as text and ids). */
export function encodeCursor(kind: CursorKind, position: unknown[]): string {
  return Buffer.from(JSON.stringify({ k: kind, p: position })).toString('base64url');
}

/** The position a cursor holds; refuses one that is malformed or continues another read. */
export function decodeCursor(text: string, kind: CursorKind, length: number): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  const cursor = parsed as { k?: unknown; p?: unknown } | null;
  const malformed = () =>
    invalid("cursor is not one this service gave: pass a previous answer's nextCursor verbatim, or leave cursor out to start at the beginning.", 'cursor');
  if (!cursor || typeof cursor.k !== 'string' || !Array.isArray(cursor.p)) throw malformed();
  if (cursor.k !== kind)
    throw invalid(
      `This cursor continues another read (${cursor.k}), not this one (${kind}); send it with the same parameters as the call that returned it, or leave cursor out to start again.`,
      'cursor',
    );
  if (cursor.p.length !== length) throw malformed();
  return cursor.p;
}
