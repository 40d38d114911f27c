/**
 * The `listkeeper` command: accounts, API keys and the database, for the person who runs
 * the service. It uses the same database as the server: DATABASE_URL, or the embedded
 * Postgres in the data folder (attaching to it when the server is running).
 */
import { Command } from 'commander';
import { loadConfig } from '../config.js';
import { openDatabase, type OpenDatabase } from '../store/open.js';
import { createUser, findUserByEmail } from '../domain/accounts.js';
import { createApiKey, revokeApiKey } from '../auth/apikeys.js';
import { ApiError } from '../http/errors.js';
import { createShare, removeShare } from '../domain/shares.js';
import { seedWorkspace } from '../bench/seed.js';
import { createSearch } from '../search/create.js';
import { reindex, type ReindexProgress } from '../search/reindex.js';

const program = new Command();
program.name('listkeeper').description('Run and administer a listkeeper service.').showHelpAfterError();

/** Opens the database, runs `work`, and closes it again, turning refusals into one line on stderr. */
async function withDatabase(work: (db: OpenDatabase) => Promise<void>): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase(config, (line) => process.stderr.write(`${line}\n`), { attach: true });
  try {
    await work(database);
  } finally {
    await database.close();
  }
}

const user = program.command('user').description('Accounts.');
user
  .command('create')
  .description('Create an account with its Tasks, Notes and Life Admin lists.')
  .requiredOption('--email <email>', 'the person\'s email address')
  .option('--name <name>', 'the person\'s name')
  .option('--timezone <tz>', 'IANA time zone, e.g. Europe/London', 'UTC')
  .action(async (opts: { email: string; name?: string; timezone: string }) => {
    await withDatabase(async ({ db }) => {
      const created = await createUser(db, { email: opts.email, name: opts.name ?? opts.email.split('@')[0]!, timezone: opts.timezone });
      process.stdout.write(`Created account ${created.email} (${created.id}).\n`);
    });
  });

const apikey = program.command('apikey').description('API keys (one per person; a new key replaces the old).');
apikey
  .command('create')
  .description('Create an API key for an account and print it once.')
  .requiredOption('--email <email>', 'the account\'s email address')
  .action(async (opts: { email: string }) => {
    await withDatabase(async ({ db }) => {
      const found = await findUserByEmail(db, opts.email);
      if (!found) throw new ApiError('notFound', `No account with email ${opts.email}; create it with 'listkeeper user create'.`);
      const key = await createApiKey(db, found.id);
      process.stderr.write('This key is shown once; any previous key of this account stops working now.\n');
      process.stdout.write(`${key}\n`);
    });
  });
apikey
  .command('revoke')
  .description('Revoke an account\'s API key.')
  .requiredOption('--email <email>', 'the account\'s email address')
  .action(async (opts: { email: string }) => {
    await withDatabase(async ({ db }) => {
      const found = await findUserByEmail(db, opts.email);
      if (!found) throw new ApiError('notFound', `No account with email ${opts.email}.`);
      process.stdout.write((await revokeApiKey(db, found.id)) ? 'Key revoked.\n' : 'This account had no key.\n');
    });
  });

const share = program.command('share').description('Share items and lists with another account.');
share
  .command('add')
  .description('Share an item (the recipient may edit its title and body) or a whole list (every field).')
  .option('--item <id>', 'the item to share')
  .option('--list <id>', 'the list to share')
  .requiredOption('--with <email>', 'the recipient\'s email address')
  .action(async (opts: { item?: string; list?: string; with: string }) => {
    if (!opts.item === !opts.list) throw new Error('Give exactly one of --item or --list.');
    await withDatabase(async ({ db }) => {
      const recipient = await findUserByEmail(db, opts.with);
      if (!recipient) throw new Error(`No account with email ${opts.with}.`);
      const created = await createShare(db, opts.item ? { itemId: opts.item } : { listId: opts.list! }, recipient.id);
      process.stdout.write(`Shared with ${recipient.email}; share id ${created.id}.\n`);
    });
  });
share
  .command('remove')
  .description('Remove a share by its id.')
  .requiredOption('--id <shareId>', 'the share id printed by share add')
  .action(async (opts: { id: string }) => {
    await withDatabase(async ({ db }) => {
      process.stdout.write((await removeShare(db, opts.id)) ? 'Share removed.\n' : 'No such share.\n');
    });
  });

const search = program.command('search').description('The search index.');
search
  .command('reindex')
  .description('Rebuild the search index from the items table, for every account or one. Resumable: an interrupted run continues where it stopped.')
  .option('--email <email>', 'only this account\'s items')
  .option('--clear', 'empty the index first (all accounts only), dropping entries of items that no longer exist')
  .option('--restart', 'start from the first item even if an earlier run was interrupted')
  .option('--batch-size <n>', 'items per step (one embedding run and one checkpoint each)', (v) => Number.parseInt(v, 10), 200)
  .action(async (opts: { email?: string; clear?: boolean; restart?: boolean; batchSize: number }) => {
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
      const { index, identity } = await createSearch(config.search, db);
      process.stderr.write(`Indexing into ${identity.backend} with the ${identity.embedder} embedder.\n`);
      const bar = progressBar(process.stderr);
      const result = await reindex(db, index, identity, {
        batchSize: opts.batchSize,
        ...(ownerId ? { ownerId } : {}),
        ...(opts.clear ? { clear: true } : {}),
        ...(opts.restart ? { restart: true } : {}),
        onProgress: bar.update,
      });
      bar.end();
      process.stdout.write(`Indexed ${result.total} items${result.resumedAt ? ` (continued after ${result.resumedAt} done earlier)` : ''}.\n`);
    });
  });

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

const bench = program.command('bench').description('Benchmark helpers.');
bench
  .command('seed')
  .description('Create an account with a realistic workspace of N items (lists of every role, bodies, chats, trash); prints its key and list ids as JSON.')
  .requiredOption('--items <n>', 'how many items', (v) => Number.parseInt(v, 10))
  .option('--email <email>', 'the account\'s email (default: a fresh bench-… address)')
  .option('--seed <n>', 'random seed, for repeatable data', (v) => Number.parseInt(v, 10), 1)
  .action(async (opts: { items: number; email?: string; seed: number }) => {
    if (!Number.isInteger(opts.items) || opts.items < 1) throw new Error('--items takes a whole number of at least 1.');
    await withDatabase(async ({ db }) => {
      const result = await seedWorkspace(db, { items: opts.items, seed: opts.seed, ...(opts.email ? { email: opts.email } : {}) });
      process.stdout.write(`${JSON.stringify(result)}\n`);
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

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`listkeeper: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
