/** Signing in to a running service and out again: login, logout, whoami. */
import type { Command } from 'commander';
import { readCredentials, removeCredentials, withCredentialsLock, writeCredentials, type Credentials } from './credentials.js';
import { revokeSignIn, signInWithBrowser } from './oauth-login.js';
import { openInBrowser } from './open-browser.js';
import { CliError, printJson, say } from './output.js';
import { readSecret } from './read-secret.js';
import { clientFor, connect, DEFAULT_URL, isUnauthorized, serviceUrl } from './service-client.js';

/** Adds `login`, `logout` and `whoami`. */
export function registerSessionCommands(program: Command, version: string): void {
  program
    .command('login')
    .description('Sign in to a running listkeeper once: in the browser (OAuth), or with an API key. Kept in ~/.config/listkeeper/credentials.json.')
    .option('--url <url>', `the service's address (default: the last one signed in to, else ${DEFAULT_URL})`)
    .option('--key <key>', "an API key (lk_…) instead of the browser; '-' reads it from standard input")
    .option('--no-browser', 'print the sign-in address without opening a browser')
    .option('--read-only', 'ask to read only (the consent page may narrow it further)')
    .option('--no-deletes', 'ask to read and write but delete nothing')
    .option('--lists <ids>', 'ask for these lists only (ids, comma-separated; or tick them on the consent page)')
    .action(async (opts: { url?: string; key?: string; browser: boolean; readOnly?: boolean; deletes?: boolean; lists?: string }) => {
      const previous = await readCredentials().catch(() => null);
      const url = serviceUrl(opts.url ?? process.env.LISTKEEPER_URL ?? previous?.url ?? DEFAULT_URL);
      let credentials: Credentials;
      if (opts.key !== undefined) {
        const key = (opts.key === '-' ? await readSecret('API key (not shown): ') : opts.key).trim();
        if (!key) throw new CliError('--key takes an API key (lk_…); create one on Settings → Connections.');
        credentials = { url, method: 'apiKey', token: key };
      } else {
        const lists = opts.lists
          ?.split(',')
          .map((l) => l.trim())
          .filter(Boolean);
        const access = opts.readOnly ? 'readOnly' : opts.deletes === false ? 'noDeletes' : undefined;
        const signedIn = await signInWithBrowser(url, {
          version,
          ...(access || lists ? { grant: { ...(access ? { access } : {}), ...(lists ? { lists } : {}) } } : {}),
          show: (address) => {
            process.stderr.write(`Open this address in your browser to sign in (this command waits for it; Ctrl-C stops):\n\n  ${address}\n\n`);
            if (opts.browser) openInBrowser(address);
          },
        });
        credentials = { url, method: 'oauth', token: signedIn.token, oauth: signedIn.session };
      }
      let user: { email: string; name: string; timezone: string };
      try {
        user = (await (await clientFor(url, credentials.token)).context.get({})).user;
      } catch (err) {
        if (isUnauthorized(err)) throw new CliError(`${url} refused the ${opts.key !== undefined ? 'key' : 'token'}: ${err.message}`);
        throw err;
      }
      await writeCredentials({ ...credentials, email: user.email, timezone: user.timezone });
      // The connection the earlier sign-in made in the browser is not needed any more.
      if (previous?.oauth && previous.token !== credentials.token) await revokeSignIn(previous.oauth);
      say(`Signed in to ${url} as ${user.email} (${user.name}, ${user.timezone}).`);
    });

  program
    .command('logout')
    .description('Forget the sign-in; a browser sign-in is also ended on the server.')
    .action(async () => {
      const saved = await readCredentials().catch(() => null);
      if (!(await removeCredentials())) return say('Not signed in.');
      if (saved?.oauth) {
        const ended = await revokeSignIn(saved.oauth);
        return say(`Signed out of ${saved.url}${ended ? '; the connection was ended on the server too.' : ', here (the server could not be told).'}`);
      }
      say(`Signed out of ${saved?.url ?? 'the service'}. The API key itself still works until you revoke it (Settings → Connections).`);
    });

  program
    .command('whoami')
    .description('Who you are signed in as, and where.')
    .option('--json', 'print JSON, for scripts')
    .action(async (opts: { json?: boolean }) => {
      const { service, credentials, source } = await connect();
      const { user } = await service.context.get({});
      if (source === 'saved' && credentials.timezone !== user.timezone) {
        // Re-read under the lock: a refresh during the call above saved newer tokens than `credentials` holds.
        await withCredentialsLock(async () => {
          const latest = await readCredentials();
          if (latest) await writeCredentials({ ...latest, timezone: user.timezone });
        });
      }
      const how = source === 'environment' ? 'LISTKEEPER_KEY' : credentials.method === 'oauth' ? 'browser' : 'apiKey';
      if (opts.json) return printJson({ url: credentials.url, email: user.email, name: user.name, timezone: user.timezone, signedInWith: how });
      const sentence = { LISTKEEPER_KEY: 'with the key in LISTKEEPER_KEY', browser: 'in the browser', apiKey: 'with an API key' }[how];
      say(`${user.email} (${user.name}) at ${credentials.url}, signed in ${sentence}; time zone ${user.timezone}.`);
    });
}
