/**
 * Opaque paging cursors (`nextCursor` / `cursor`): the position after the last row of a page,
 * as base64url JSON `{k: kind, p: position}`. A cursor holds the sort key of that row, not its
 * offset, so rows written or deleted meanwhile shift nothing: the next page starts right after
 * the row the previous one ended with. A cursor this service did not give, or one of another
 * read, is refused with 409 `toolError` on `cursor` (it has the right form, but cannot be used
 * here), before any of it reaches SQL.
 * @see docs/conventions.md (Paging)
 */
import { ApiError } from '../core/errors.js';

/** Which read a cursor continues; a cursor of one kind is refused by another. */
export type CursorKind = `items:${string}` | 'feed' | 'trash' | 'runs';

/** What the parts of positions look like: Postgres' text of a timestamptz, a uuid, a bigint, a boolean. */
export const SHAPES = {
  timestamptz: /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:\d{2})?|Z)$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  bigint: /^\d{1,19}$/,
  boolean: /^(true|false)$/,
  any: /^[\s\S]{1,100}$/,
} as const;

/** The cursor after a row whose position is `position` (its sort key as text). */
export function encodeCursor(kind: CursorKind, position: string[]): string {
  return Buffer.from(JSON.stringify({ k: kind, p: position })).toString('base64url');
}

function unusable(): ApiError {
  return new ApiError(
    'toolError',
    "cursor is not one this service gave: pass a previous answer's nextCursor verbatim, or leave cursor out to start at the beginning.",
    {
      field: 'cursor',
    },
  );
}

/** The position a cursor holds, each part of the shape given; refuses one that is not, or that continues another read. */
export function decodeCursor(text: string, kind: CursorKind, shapes: readonly RegExp[]): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  const cursor = parsed as { k?: unknown; p?: unknown } | null;
  if (!cursor || typeof cursor.k !== 'string' || !Array.isArray(cursor.p)) throw unusable();
  if (cursor.k !== kind)
    throw new ApiError(
      'toolError',
      `This cursor continues another read (${cursor.k.slice(0, 40)}), not this one (${kind}); send it with the same parameters as the call that returned it, or leave cursor out to start again.`,
      { field: 'cursor' },
    );
  const position = cursor.p as unknown[];
  if (position.length !== shapes.length || !position.every((part, i) => typeof part === 'string' && shapes[i]!.test(part))) throw unusable();
  return position as string[];
}
