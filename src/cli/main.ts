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
