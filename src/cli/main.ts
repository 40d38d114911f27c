/**
 * The `listkeeper` command: accounts, passwords, API keys, OAuth keys and the database, for the person who runs
 * the service. It uses the same database as the server: DATABASE_URL, or the embedded
 * Postgres in the data folder (attaching to it when the server is running).
 */
import { Command } from 'commander';
import { loadConfig } from '../core/config.js';
import { openDatabase, type OpenDatabase } from '../store/open.js';
import { createUser, findUserByEmail } from '../domain/accounts.js';
import { createApiKey, revokeApiKey } from '../domain/api-keys.js';
import { retireKeys, rotateKeys } from '../auth/oauth/keys.js';
import { setUserPassword } from '../domain/passwords.js';
import { ApiError } from '../core/errors.js';
import { createShare, removeShare } from '../domain/shares.js';
import { seedWorkspace } from './seed.js';
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import type { Knex } from 'knex';
import { createAutomation, deleteAutomation, listAutomations, setStatus, timeZoneOf } from '../domain/automations/automations.js';
import { addMemory, listMemory, removeMemory } from '../domain/memory.js';
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
  .requiredOption('--email <email>', "the person's email address")
  .option('--name <name>', "the person's name")
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
  .requiredOption('--email <email>', "the account's email address")
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
  .description("Revoke an account's API key.")
  .requiredOption('--email <email>', "the account's email address")
  .action(async (opts: { email: string }) => {
    await withDatabase(async ({ db }) => {
      const found = await findUserByEmail(db, opts.email);
      if (!found) throw new ApiError('notFound', `No account with email ${opts.email}.`);
      process.stdout.write((await revokeApiKey(db, found.id)) ? 'Key revoked.\n' : 'This account had no key.\n');
    });
  });

user
  .command('set-password')
  .description('Set the password an account signs in with on the web pages (read from standard input).')
  .requiredOption('--email <email>', "the account's email address")
  .action(async (opts: { email: string }) => {
    const password = await readSecret('New password (not shown): ');
    await withDatabase(async ({ db }) => {
      const found = await findUserByEmail(db, opts.email);
      if (!found) throw new ApiError('notFound', `No account with email ${opts.email}.`);
      await setUserPassword(db, found.id, password);
      process.stdout.write(`Password set for ${found.email}; its other web sessions were signed out.\n`);
    });
  });

const oauth = program.command('oauth').description("The OAuth authorization server's keys (README: Key rotation).");
oauth
  .command('rotate-keys')
  .description('Add a new ES256 signing key and cookie secret; processes use them from their next start.')
  .action(async () => {
    await withDatabase(async ({ db }) => {
      const { signingKid } = await rotateKeys(db);
      process.stdout.write(`New signing key ${signingKid}. Restart every listkeeper process; older keys keep verifying until retired.\n`);
    });
  });
oauth
  .command('retire-keys')
  .description('Delete every signing key and cookie secret but the newest (refused within an hour of rotating).')
  .action(async () => {
    await withDatabase(async ({ db }) => {
      const { retired } = await retireKeys(db);
      process.stdout.write(retired.length > 0 ? `Retired ${retired.join(', ')}.\n` : 'Nothing to retire.\n');
    });
  });

/** Reads a secret from standard input: typed without echo on a terminal, else the first line of the pipe. */
async function readSecret(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    let text = '';
    for await (const chunk of stdin) text += String(chunk);
    return text.split(/\r?\n/)[0] ?? '';
  }
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let value = '';
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') {
          done();
          return resolve(value);
        }
        if (ch === '\u0003') {
          done();
          return reject(new Error('cancelled'));
        }
        value = ch === '\u007f' ? value.slice(0, -1) : value + ch;
      }
    };
    const done = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}

const share = program.command('share').description('Share items and lists with another account.');
share
  .command('add')
  .description('Share an item (the recipient may edit its title and body) or a whole list (every field).')
  .option('--item <id>', 'the item to share')
  .option('--list <id>', 'the list to share')
  .requiredOption('--with <email>', "the recipient's email address")
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
  .option('--email <email>', "only this account's items")
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
  .option('--email <email>', "the account's email (default: a fresh bench-… address)")
  .option('--seed <n>', 'random seed, for repeatable data', (v) => Number.parseInt(v, 10), 1)
  .action(async (opts: { items: number; email?: string; seed: number }) => {
    if (!Number.isInteger(opts.items) || opts.items < 1) throw new Error('--items takes a whole number of at least 1.');
    await withDatabase(async ({ db }) => {
      const result = await seedWorkspace(db, { items: opts.items, seed: opts.seed, ...(opts.email ? { email: opts.email } : {}) });
      process.stdout.write(`${JSON.stringify(result)}\n`);
    });
  });

async function accountId(db: Knex, email: string): Promise<string> {
  const found = await findUserByEmail(db, email);
  if (!found) throw new ApiError('notFound', `No account with email ${email}; create it with 'listkeeper user create'.`);
  return found.id;
}

const automation = program.command('automation').description('Automations: standing orders the service runs on a schedule or on demand.');
automation
  .command('create')
  .description(
    "Create an automation from a JSON or YAML file: name, description, status (active, paused, draft), schedule (cron in the account's time zone), actions (see the README).",
  )
  .requiredOption('--email <email>', "the account's email address")
  .requiredOption('--file <path>', 'the definition, .json or .yaml')
  .action(async (opts: { email: string; file: string }) => {
    const text = await readFile(opts.file, 'utf8');
    const definition: unknown = /\.ya?ml$/i.test(opts.file) ? parseYaml(text) : JSON.parse(text);
    await withDatabase(async ({ db }) => {
      const made = await createAutomation(db, await accountId(db, opts.email), definition, new Date());
      process.stdout.write(
        `Created automation '${made.name}' (${made.id}), ${made.status}${made.next_run_at ? `, next run ${made.next_run_at.toISOString()}` : ''}.\n`,
      );
    });
  });
automation
  .command('list')
  .description("List an account's automations.")
  .requiredOption('--email <email>', "the account's email address")
  .action(async (opts: { email: string }) => {
    await withDatabase(async ({ db }) => {
      const userId = await accountId(db, opts.email);
      const [rows, tz] = [await listAutomations(db, userId), await timeZoneOf(db, userId)];
      if (rows.length === 0) process.stdout.write('No automations.\n');
      for (const r of rows)
        process.stdout.write(
          `${r.id}  ${r.status.padEnd(6)}  ${(r.schedule ?? 'on demand').padEnd(14)}  ${r.next_run_at ? `next ${r.next_run_at.toISOString()} (${tz})` : 'no next run'}  ${r.name}: ${r.description}\n`,
        );
    });
  });
for (const [name, status, what] of [
  ['pause', 'paused', 'Pause: no scheduled runs (it can still run on demand).'],
  ['resume', 'active', 'Make active: scheduled runs resume from now.'],
] as const) {
  automation
    .command(name)
    .description(what)
    .requiredOption('--email <email>', "the account's email address")
    .requiredOption('--id <id>', "the automation's id")
    .action(async (opts: { email: string; id: string }) => {
      await withDatabase(async ({ db }) => {
        const row = await setStatus(db, await accountId(db, opts.email), opts.id, status, new Date());
        process.stdout.write(`'${row.name}' is ${row.status}${row.next_run_at ? `; next run ${row.next_run_at.toISOString()}` : ''}.\n`);
      });
    });
}
automation
  .command('delete')
  .description('Delete an automation and its run history (its chat item stays on the Notes list).')
  .requiredOption('--email <email>', "the account's email address")
  .requiredOption('--id <id>', "the automation's id")
  .action(async (opts: { email: string; id: string }) => {
    await withDatabase(async ({ db }) => {
      const row = await deleteAutomation(db, await accountId(db, opts.email), opts.id);
      process.stdout.write(`Deleted automation '${row.name}'.\n`);
    });
  });

const memory = program.command('memory').description('What the person asked the AI to remember (agents read it in get_context).');
memory
  .command('add')
  .description('Remember one thing (up to 500 characters).')
  .requiredOption('--email <email>', "the account's email address")
  .argument('<text>', 'what to remember')
  .action(async (text: string, opts: { email: string }) => {
    await withDatabase(async ({ db }) => {
      const row = await addMemory(db, await accountId(db, opts.email), text);
      process.stdout.write(`Remembered (${row.id}).\n`);
    });
  });
memory
  .command('list')
  .description('List what is remembered, oldest first, with ids.')
  .requiredOption('--email <email>', "the account's email address")
  .action(async (opts: { email: string }) => {
    await withDatabase(async ({ db }) => {
      const rows = await listMemory(db, await accountId(db, opts.email));
      if (rows.length === 0) process.stdout.write('Nothing is remembered.\n');
      for (const r of rows) process.stdout.write(`${r.id}  ${r.text}\n`);
    });
  });
memory
  .command('remove')
  .description('Forget one thing by its id.')
  .requiredOption('--email <email>', "the account's email address")
  .requiredOption('--id <id>', 'the id shown by memory list')
  .action(async (opts: { email: string; id: string }) => {
    await withDatabase(async ({ db }) => {
      const row = await removeMemory(db, await accountId(db, opts.email), opts.id);
      process.stdout.write(`Forgot: ${row.text}\n`);
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
