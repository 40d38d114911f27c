/**
 * Long bodies keep their block outline in `body_outlines`, so reading one for editing, or
 * editing it, parses it once in all processes and restarts rather than once per process:
 * parsing Markdown costs seconds per megabyte (in a worker thread: body/parse-pool.ts), loading
 * an outline milliseconds.
 * @see ./body/README.md "Implementation notes"
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { cachedParsed, rememberParsed, versionOf } from './cache.js';
import { parsePool } from './parse-pool.js';
import { fromOutline, toOutline } from './outline.js';

/** Bodies shorter than this parse quickly enough on the request's thread (bench/README.md) and keep no outline. */
export const OUTLINE_MIN_CHARS = 32 * 1024;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** How a body came to be parsed, for tests and logs. */
export type Preparation = 'short' | 'cached' | 'outline' | 'parsed';

/**
 * Makes sure this process holds the parse of item `itemId`'s `body` before a read for
 * editing or an edit: from memory, else from a stored outline, else by parsing it now (and
 * storing the outline for next time, unless `store` is false: inside a writer's transaction,
 * where a failed write would abort it, and the body is about to change anyway).
 */
export async function prepareBody(db: Knex, itemId: string, body: string, options: { store?: boolean } = {}): Promise<Preparation> {
  if (body.length < OUTLINE_MIN_CHARS) return 'short';
  // One hash of the body serves both keys: the cache's version is the digest's first 12 characters.
  const digest = sha256(body);
  if (cachedParsed(body, versionOf(digest))) return 'cached';
  const row = (await db('body_outlines').where({ item_id: itemId }).first('body_sha256', 'outline')) as { body_sha256: string; outline: string } | undefined;
  if (row?.body_sha256 === digest) {
    const parsed = fromOutline(body, row.outline);
    if (parsed) {
      rememberParsed(parsed, versionOf(digest));
      return 'outline';
    }
  }
  // Off the event loop: the other requests of the process go on meanwhile.
  const { parsed, outline } = await parsePool().parse(body);
  rememberParsed(parsed, versionOf(digest));
  // A cache: if the item went away meanwhile (the key refers to it), the read still answers.
  if (options.store !== false) await writeOutline(db, itemId, digest, outline).catch(() => undefined);
  return 'parsed';
}

/**
 * Stores the outline of a body this process has just parsed (an edit leaves the new body
 * parsed in memory); does nothing for a short body or one not in memory.
 */
export async function rememberOutline(db: Knex, itemId: string, body: string): Promise<void> {
  if (body.length < OUTLINE_MIN_CHARS) return;
  const digest = sha256(body);
  const parsed = cachedParsed(body, versionOf(digest));
  if (parsed) await writeOutline(db, itemId, digest, toOutline(parsed));
}

async function writeOutline(db: Knex, itemId: string, digest: string, outline: string): Promise<void> {
  await db('body_outlines')
    .insert({ item_id: itemId, body_sha256: digest, outline, updated_at: db.fn.now() })
    .onConflict('item_id')
    .merge(['body_sha256', 'outline', 'updated_at']);
}
