/** Admin commands on the service as a whole, on its database: the search index and migrations. */
import type { Command } from 'commander';
import type { Knex } from 'knex';
import { loadConfig } from '../core/config.js';
import { findUserByEmail } from '../domain/accounts/accounts.js';
import { createSearch } from '../search/create.js';
import { rebuildStatus, reindex, storedIdentity, type IndexIdentity, type ReindexProgress } from '../search/reindex.js';
import { withDatabase } from './admin-database.js';

/** Adds `search reindex` (under the `search` command given) and `db migrate`. */
export function registerServiceCommands(program: Command, search: Command): void {
  // `listkeeper search help` searches for "help"; `search --help` still shows the help.
  search.helpCommand(false);
  search
    .command('reindex')
    .description('Rebuild the search index from the items table, for every account or one. Resumable: an interrupted run continues where it stopped.')
    .option('--email <email>', "only this account's items")
    .option('--clear', 'empty the index first (all accounts only), dropping entries of items that no longer exist')
    .option('--restart', 'start from the first item even if an earlier run was interrupted')
    .option('--batch-size <n>', 'items per step (one embedding run and one checkpoint each)', (v) => Number.parseInt(v, 10), 200)
    .option('--status', "show what built the index and how far a rebuild under way (the server's own, in the background) has got, and rebuild nothing")
    .action(async (opts: { email?: string; clear?: boolean; restart?: boolean; batchSize: number; status?: boolean }) => {
      if (opts.status) return withDatabase(async ({ db }) => void process.stdout.write(await statusText(db)));
      if (!Number.isInteger(opts.batchSize) || opts.batchSize < 1) throw new Error('--batch-size takes a whole number of at least 1.');
      if (opts.clear && opts.email) throw new Error('--clear empties the whole index, so it cannot go with --email.');
      await withDatabase(async ({ db }) => {
        const config = loadConfig();
        let ownerId: string | undefined;
        if (opts.email) {
          const found = await findUserByEmail(db, opts.email);
          if (!found) throw new Error(`No account with email ${opts.email}.`);
          ownerId = found.id;
        }
        const search = await createSearch(config.search, db);
        const { index, identity } = search;
        process.stderr.write(`Indexing into ${identity.backend} with the ${identity.embedder} embedder.\n`);
        const bar = progressBar(process.stderr);
        const result = await reindex(db, index, identity, {
          batchSize: opts.batchSize,
          ...(ownerId ? { ownerId } : {}),
          ...(opts.clear ? { clear: true } : {}),
          ...(opts.restart ? { restart: true } : {}),
          onProgress: bar.update,
        }).finally(() => search.close());
        bar.end();
        process.stdout.write(`Indexed ${result.total} items${result.resumedAt ? ` (continued after ${result.resumedAt} done earlier)` : ''}.\n`);
      });
    });

  program
    .command('db')
    .description('The database.')
    .command('migrate')
    .description('Apply pending migrations (the server also does this on start).')
    .action(async () => {
      await withDatabase(async () => {
        process.stdout.write('Database is up to date.\n');
      });
    });
}

/** What `search reindex --status` prints: the recorded index identity and the unfinished rebuild, if any. */
async function statusText(db: Knex): Promise<string> {
  const [built, rebuild] = [await storedIdentity(db), await rebuildStatus(db)];
  if (!rebuild) return built ? `The index is built with ${describeIdentity(built)}; no rebuild is under way.\n` : 'No search index has been recorded yet.\n';
  const total = rebuild.done + rebuild.remaining;
  const lines = [
    `Rebuilding with ${describeIdentity(rebuild.identity)}: ${rebuild.done} of ${total} items (${total ? Math.floor((100 * rebuild.done) / total) : 100}%), started ${rebuild.startedAt}, last batch ${rebuild.updatedAt}.`,
  ];
  if (rebuild.previous)
    lines.push(
      `Items not reached yet still have vectors of ${describeIdentity(rebuild.previous)}: until then the server embeds queries with that model too when it can run it here (a local model), else finds those items by their words only.`,
    );
  lines.push('The server works through it in the background; `listkeeper search reindex` does it here instead.');
  return `${lines.join('\n')}\n`;
}

function describeIdentity(identity: IndexIdentity): string {
  return `${identity.backend} and the ${identity.embedder} embedder${identity.dimensions ? ` (${identity.dimensions} dimensions)` : ''}`;
}

/** A one-line progress bar redrawn in place on a terminal; on a pipe, a line every 10%. */
function progressBar(out: NodeJS.WriteStream): { update(p: ReindexProgress): void; end(): void } {
  const started = Date.now();
  let firstDone: number | null = null;
  let lastDecile = -1;
  let drawn = false;
  return {
    update(p) {
      firstDone ??= p.done;
      const share = p.total === 0 ? 1 : p.done / p.total;
      const seconds = (Date.now() - started) / 1000;
      const rate = seconds > 0 ? (p.done - firstDone) / seconds : 0;
      const eta = rate > 0 ? Math.round((p.total - p.done) / rate) : null;
      const text = `${p.done}/${p.total} items ${Math.floor(share * 100)}%${rate > 0 ? `, ${rate.toFixed(1)}/s` : ''}${eta !== null ? `, ${eta}s left` : ''}`;
      if (out.isTTY) {
        const width = 30;
        const filled = Math.round(share * width);
        out.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}\x1b[K`);
        drawn = true;
      } else if (Math.floor(share * 10) > lastDecile) {
        lastDecile = Math.floor(share * 10);
        out.write(`${text}\n`);
      }
    },
    end() {
      if (drawn) out.write('\n');
    },
  };
}
