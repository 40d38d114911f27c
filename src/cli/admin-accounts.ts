/**
 * Admin commands on accounts, on the server's database: user, apikey, oauth keys, share. A
 * password and a key are one account's (`--email`): the person's operations, called as that
 * account (as-person.ts). Creating an account, sharing between two and the OAuth keys act for
 * no one person: the operator's commands call the domain and auth/ directly.
 */
import type { Command } from 'commander';
import type { Knex } from 'knex';
import { ApiError } from '../core/errors.js';
import { createUser, findUserByEmail } from '../domain/accounts/accounts.js';
import { createShare, removeShare } from '../domain/lists/shares.js';
import { retireKeys, rotateKeys } from '../auth/oauth/keys.js';
import { withDatabase } from './admin-database.js';
import { callAsPerson } from './as-person.js';
import { readSecret } from './read-secret.js';

/** The account's id by email, or a refusal that says how to create it. */
export async function accountId(db: Knex, email: string): Promise<string> {
  const found = await findUserByEmail(db, email);
  if (!found) throw new ApiError('notFound', `No account with email ${email}; create it with 'listkeeper user create'.`);
  return found.id;
}

/** Adds `user`, `apikey`, `oauth` and `share`. */
export function registerAccountCommands(program: Command): void {
  registerUserCommands(program);
  registerApiKeyCommands(program);
  registerOAuthCommands(program);
  registerShareCommands(program);
}

/** `user create|set-password`. */
function registerUserCommands(program: Command): void {
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
  user
    .command('set-password')
    .description('Set the password an account signs in with on the web pages (read from standard input).')
    .requiredOption('--email <email>', "the account's email address")
    .action(async (opts: { email: string }) => {
      const password = await readSecret('New password (not shown): ');
      await withDatabase(async ({ db }) => {
        const found = await findUserByEmail(db, opts.email);
        if (!found) throw new ApiError('notFound', `No account with email ${opts.email}.`);
        await callAsPerson(db, found.id, 'change_password', { password });
        process.stdout.write(`Password set for ${found.email}; its other web sessions were signed out.\n`);
      });
    });
}

/** `apikey create|revoke`. */
function registerApiKeyCommands(program: Command): void {
  const apikey = program.command('apikey').description('API keys (one per person; a new key replaces the old).');
  apikey
    .command('create')
    .description('Create an API key for an account and print it once.')
    .requiredOption('--email <email>', "the account's email address")
    .option('--read-only', 'the key reads and changes nothing')
    .option('--no-deletes', 'the key reads and writes but deletes nothing')
    .option('--lists <lists>', 'limit the key to these lists (names or ids, comma-separated)')
    .option('--later-lists', 'with --lists, also the lists made later')
    .action(async (opts: { email: string; readOnly?: boolean; deletes?: boolean; lists?: string; laterLists?: boolean }) => {
      await withDatabase(async ({ db }) => {
        const access = opts.readOnly ? 'readOnly' : opts.deletes === false ? 'noDeletes' : 'all';
        const lists = opts.lists
          ?.split(',')
          .map((l) => l.trim())
          .filter(Boolean);
        const grant = { access, ...(lists ? { lists } : {}), ...(opts.laterLists ? { laterLists: true } : {}) } as const;
        const { key } = await callAsPerson(db, await accountId(db, opts.email), 'create_api_key', grant);
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
        const { revoked } = await callAsPerson(db, found.id, 'revoke_api_key', {});
        process.stdout.write(revoked ? 'Key revoked.\n' : 'This account had no key.\n');
      });
    });
}

/** `oauth rotate-keys|retire-keys`. */
function registerOAuthCommands(program: Command): void {
  const oauth = program.command('oauth').description("The OAuth authorization server's keys (docs/auth.md: Key rotation).");
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
}

/** `share add|remove`. */
function registerShareCommands(program: Command): void {
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
}
