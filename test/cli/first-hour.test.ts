/**
 * The first hour with the built `listkeeper` command, run as a person runs it from a folder of
 * their own: the admin commands find the server's data as the server does and, pointed at a
 * place without it, say so and create nothing; a person signs in (with a key, and through the
 * browser's OAuth flow, driven here over HTTP) and adds, lists, completes, edits, finds and
 * removes items on a running service.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { childEnv } from '../support/env.js';
import { useTestServer, type TestAccount } from '../support/server.js';
import { authorizeInBrowser, HttpBrowser, tokenRequest } from '../support/oauth.js';
import { createClient } from '../../sdk/src/index.js';
import { describeDue } from '../../src/cli/due-dates.js';

const root = path.resolve(import.meta.dirname ?? '.', '../..');
const bin = path.join(root, 'bin/listkeeper.js');
const version = (JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

describe('the listkeeper command in the first hour', () => {
  const { server } = useTestServer({ env: { EMBEDDINGS: 'none' }, search: true, accounts: [] });
  let ada: TestAccount;
  const password = 'correct horse battery';
  let elsewhere: string;
  let configHome: string;
  let credentialsFile: string;
  /** Ada's key as the admin command made it (it replaces the one the test server made). */
  let key: string;
  const items = () => createClient({ baseUrl: server.baseUrl, token: key, throwOnError: true }).items;

  beforeAll(async () => {
    if (!existsSync(path.join(root, 'dist/src/cli/main.js'))) throw new Error('dist/ is missing: run `npx tsc -p tsconfig.build.json` before this suite.');
    ada = await server.account('Ada', password);
    elsewhere = await mkdtemp(path.join(os.tmpdir(), 'lk-cli-elsewhere-'));
    // Reachable by the postgres user (as root, Postgres runs as that user): nothing but the command's own rule stops a new cluster here.
    await chmod(elsewhere, 0o755);
    configHome = await mkdtemp(path.join(os.tmpdir(), 'lk-cli-config-'));
    credentialsFile = path.join(configHome, 'listkeeper', 'credentials.json');
  });
  // After useTestServer's afterAll (jest runs them in the order declared): the server is closed first.
  afterAll(async () => {
    for (const dir of [elsewhere, configHome]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The environment of a person's shell: none of the server's settings, the config folder in a temp dir, no browser. */
  function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return childEnv({ XDG_CONFIG_HOME: configHome, BROWSER: 'none', ...extra });
  }

  function cli(args: string[], extra: Record<string, string> = {}): Promise<Ran> {
    return new Promise((resolve) => {
      execFile(process.execPath, [bin, ...args], { cwd: elsewhere, env: env(extra) }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
  }

  it('refuses the admin commands where there is no server data, and creates nothing there', async () => {
    const refused = await cli(['apikey', 'create', '--email', ada.email]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`No listkeeper data in ${path.join(elsewhere, 'data')} (LISTKEEPER_DATA_DIR is not set`);
    expect(refused.stderr).toContain('set LISTKEEPER_DATA_DIR (or DATABASE_URL)');
    expect(refused.stderr).not.toMatch(/initdb|No account with email/);
    expect(await readdir(elsewhere)).toEqual([]);

    const pointed = await cli(['user', 'create', '--email', 'nobody@example.com'], { LISTKEEPER_DATA_DIR: 'srv/data' });
    expect(pointed.code).toBe(1);
    expect(pointed.stderr).toContain(`No listkeeper data in ${path.join(elsewhere, 'srv/data')} (LISTKEEPER_DATA_DIR=srv/data)`);
    expect(await readdir(elsewhere)).toEqual([]);
  });

  it('finds the server database through DATABASE_URL from any folder, and prints its version', async () => {
    const created = await cli(['apikey', 'create', '--email', ada.email], { DATABASE_URL: server.dbUrl });
    expect(created).toMatchObject({ code: 0, stderr: expect.stringContaining('shown once') });
    key = created.stdout.trim();
    expect(key).toMatch(/^lk_[A-Za-z0-9]{45}$/);
    expect(await cli(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('signs in with a key and adds, lists, completes, edits, finds and removes items', async () => {
    expect(await cli(['ls'])).toMatchObject({ code: 1, stderr: expect.stringContaining("Not signed in: run 'listkeeper login'") });
    const login = await cli(['login', '--url', server.baseUrl, '--key', key]);
    expect(login).toMatchObject({ code: 0, stdout: `Signed in to ${server.baseUrl} as ${ada.email} (Ada, Europe/London).\n` });
    expect((await stat(credentialsFile)).mode & 0o777).toBe(0o600);
    expect(JSON.parse((await cli(['whoami', '--json'])).stdout)).toEqual({
      url: server.baseUrl,
      email: ada.email,
      name: 'Ada',
      timezone: 'Europe/London',
      signedInWith: 'apiKey',
    });

    const added = await cli(['add', 'Buy oat milk', '--due', 'tomorrow 9am']);
    expect(added.code).toBe(0);
    const [, id, instant] =
      /^Added 'Buy oat milk' to Tasks \(([0-9a-f-]{36})\), due \w{3} \d{1,2} \w{3} \d{4} 09:00 Europe\/London \((\S+)\)\.\n$/.exec(added.stdout) ?? [];
    expect(id).toBeDefined();
    const london = (at: Date) =>
      new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London', dateStyle: 'short', timeStyle: 'short', hourCycle: 'h23' }).format(at);
    const tomorrow = london(new Date(Date.now() + 24 * 3600_000)).slice(0, 10);
    expect(london(new Date(instant!))).toBe(`${tomorrow}, 09:00`);
    const stored = await items().get({ id: id! });
    expect([stored.title, stored.dueAt, stored.hasDueTime]).toEqual(['Buy oat milk', instant, true]);

    expect((await cli(['add', 'Call', 'the', 'plumber'])).stdout).toMatch(/^Added 'Call the plumber' to Tasks \([0-9a-f-]{36}\)\.\n$/);
    expect(await cli(['add', 'Sometime', '--due', 'tomorow 9am'])).toMatchObject({ code: 1, stderr: expect.stringContaining("Could not read 'tomorow 9am'") });

    const table = (await cli(['ls'])).stdout.split('\n');
    expect(table[0]).toMatch(/^ID +STATUS +DUE +TITLE$/);
    expect(table).toContain(`${id}  todo    ${tomorrow} 09:00  Buy oat milk`);
    expect(table.some((l) => /^[0-9a-f-]{36} {2}todo {4} {18}Call the plumber$/.test(l))).toBe(true);
    const listed = JSON.parse((await cli(['ls', '--json'])).stdout) as { items: { title: string }[] };
    expect(listed.items.map((i) => i.title).sort()).toEqual(['Buy oat milk', 'Call the plumber']);

    expect(await cli(['done', 'buy OAT'])).toMatchObject({ code: 0, stdout: "Done: 'Buy oat milk'.\n" });
    expect((await items().get({ id: id! })).taskStatus).toBe('completed');
    expect((await cli(['ls'])).stdout).not.toContain('Buy oat milk');
    expect((await cli(['ls', '--all'])).stdout).toContain(`${id}  done    ${tomorrow} 09:00  Buy oat milk`);
    expect(await cli(['done', 'buy oat'])).toMatchObject({ code: 1, stderr: expect.stringContaining("No open item has a title starting with 'buy oat'") });

    await cli(['add', 'Pay rent']);
    await cli(['add', 'Pay tax']);
    const ambiguous = await cli(['done', 'pay']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toMatch(
      /'pay' starts the title of 2 items: 'Pay (rent|tax)' \([0-9a-f-]{36}\), 'Pay (rent|tax)' .*Give more of the title, or the id\./,
    );

    const edited = await cli(['edit', 'call the', '--title', 'Call the plumber back', '--status', 'in-progress', '--due', 'none']);
    const plumber = (await items().list({ listId: 'tasks', taskStatus: ['todo', 'inProgress'] })).items.find((i) => i.title === 'Call the plumber back')!;
    expect([plumber.dueAt, plumber.taskStatus]).toEqual([null, 'inProgress']);
    expect(edited).toMatchObject({ code: 0, stdout: "Updated 'Call the plumber': title 'Call the plumber back', no due date, status in progress.\n" });
    const lists = JSON.parse((await cli(['lists', '--json'])).stdout) as { tasksListId: string; lists: { name: string }[] };
    expect(lists.lists.map((l) => l.name)).toEqual(['Tasks', 'Notes', 'Life Admin']);
    expect((await cli(['lists'])).stdout).toMatch(/^ID +OPEN +KIND +NAME\n[0-9a-f-]{36} {2}3 +tasks +(\S+ )?Tasks\n/);

    await server.pump!.drain();
    const found = JSON.parse((await cli(['search', 'plumber', '--json'])).stdout) as { results: { title: string; webUrl: string; itemId: string }[] };
    expect(found.results.map((r) => r.title)).toEqual(['Call the plumber back']);
    expect((await cli(['search', 'plumber'])).stdout).toBe(`ID${' '.repeat(36)}LIST   TITLE\n${found.results[0]!.itemId}  Tasks  Call the plumber back\n`);
    expect(await cli(['open', 'call the plumber', '--no-browser'])).toMatchObject({ code: 0, stdout: `${found.results[0]!.webUrl}\n` });

    expect(await cli(['rm', 'call the plumber'])).toMatchObject({ code: 0, stdout: "Moved 'Call the plumber back' to the trash.\n" });
    await expect(items().get({ id: found.results[0]!.itemId })).rejects.toMatchObject({ status: 404 });

    // The service's own sentence, and a non-zero exit.
    const noList = await cli(['add', 'Milk', '--list', 'Groceries']);
    expect(noList.code).toBe(1);
    expect(noList.stderr).toMatch(/^listkeeper: .*Groceries.*\n$/);

    expect(await cli(['logout'])).toMatchObject({ code: 0, stdout: expect.stringContaining('The API key itself still works') });
    expect(existsSync(credentialsFile)).toBe(false);
  }, 120_000);

  it('says what the service answered for a repeating task: the next due date on done, the refusal on clearing it', async () => {
    const asScript = { LISTKEEPER_URL: server.baseUrl, LISTKEEPER_KEY: key };
    const run = (...args: string[]) => cli(args, asScript);
    const zone = 'Europe/London';
    const due = (at: string, hasTime: boolean) => `due ${describeDue(new Date(at), hasTime, zone)} (${at})`;
    const added = await run('add', 'Water plants', '--due', '2026-12-07 08:00', '--repeat', 'every 2 weeks on Monday at 8', '--json');
    const made = JSON.parse(added.stdout) as { id: string };

    const done = await run('done', 'water');
    const moved = await items().get({ id: made.id });
    expect([moved.taskStatus, moved.recurrence?.completions]).toEqual(['todo', 1]);
    expect(done).toMatchObject({
      code: 0,
      stdout: `Done: 'Water plants'; it repeats ${moved.recurrence!.text}, next ${due(moved.dueAt!, moved.hasDueTime === true)}.\n`,
    });

    // The service refuses, with its own sentence, and nothing moves back to the first occurrence.
    const refused = await run('edit', 'water', '--due', 'none');
    const answer = await fetch(`${server.baseUrl}/api/v1/items`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ itemId: made.id }], dueAt: 'none' }),
    });
    const error = ((await answer.json()) as { error: string }).error;
    expect(error).toContain('stop the repetition first');
    expect(refused).toMatchObject({ code: 1, stdout: '', stderr: `listkeeper: ${error}\n` });
    expect((await items().get({ id: made.id })).dueAt).toBe(moved.dueAt);

    const moveOn = await run('edit', 'water', '--due', 'next friday 9am');
    const friday = await items().get({ id: made.id });
    expect(moveOn.stdout).toBe(`Updated 'Water plants': ${due(friday.dueAt!, true)}.\n`);
    const stopped = await run('edit', 'water', '--repeat', 'none', '--due', 'none');
    const plain = await items().get({ id: made.id });
    expect([plain.dueAt, plain.recurrence]).toEqual([null, null]);
    expect(stopped.stdout).toBe("Updated 'Water plants': no due date, does not repeat.\n");
    expect(await run('done', 'water')).toMatchObject({ code: 0, stdout: "Done: 'Water plants'.\n" });
    expect((await items().get({ id: made.id })).taskStatus).toBe('completed');
  });

  it('signs in through the browser with OAuth, refreshes the token when it expires, and signs out', async () => {
    const child = spawn(process.execPath, [bin, 'login', '--url', server.baseUrl, '--no-browser'], { cwd: elsewhere, env: env() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let address: string | undefined;
    for (let i = 0; i < 100 && !address; i++) {
      address = /^ {2}(http\S+\/oauth\/authorize\?\S+)$/m.exec(stderr)?.[1];
      if (!address) await new Promise((r) => setTimeout(r, 100));
    }
    expect(address).toBeDefined();
    expect(new URL(address!).searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);

    const { location } = await authorizeInBrowser(new HttpBrowser(server.baseUrl), address!, { email: ada.email, password });
    expect(location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=/);
    const landing = await fetch(location!);
    expect(await landing.text()).toContain('Signed in.');
    expect(await exited).toBe(0);
    expect(stdout).toBe(`Signed in to ${server.baseUrl} as ${ada.email} (Ada, Europe/London).\n`);

    const saved = JSON.parse(await readFile(credentialsFile, 'utf8')) as { method: string; token: string; oauth: { refreshToken: string; expiresAt: string } };
    expect(saved.method).toBe('oauth');
    expect(saved.oauth.refreshToken).toBeTruthy();
    expect((await cli(['whoami'])).stdout).toBe(`${ada.email} (Ada) at ${server.baseUrl}, signed in in the browser; time zone Europe/London.\n`);
    expect((await cli(['add', 'Water the plants'])).code).toBe(0);

    // As if the hour had passed: the next command renews the token first, and saves the rotated refresh token.
    await writeFile(credentialsFile, JSON.stringify({ ...saved, oauth: { ...saved.oauth, expiresAt: new Date(Date.now() - 1000).toISOString() } }));
    expect((await cli(['ls'])).stdout).toContain('Water the plants');
    const renewed = JSON.parse(await readFile(credentialsFile, 'utf8')) as typeof saved;
    expect(renewed.token).not.toBe(saved.token);
    expect(renewed.oauth.refreshToken).not.toBe(saved.oauth.refreshToken);
    expect(Date.parse(renewed.oauth.expiresAt)).toBeGreaterThan(Date.now());

    expect(await cli(['logout'])).toMatchObject({ code: 0, stdout: `Signed out of ${server.baseUrl}; the connection was ended on the server too.\n` });
    const clientId = new URL(address!).searchParams.get('client_id')!;
    const reuse = await tokenRequest(server.baseUrl, { grant_type: 'refresh_token', refresh_token: renewed.oauth.refreshToken, client_id: clientId });
    expect([reuse.status, reuse.body.error]).toEqual([400, 'invalid_grant']);
    expect((await fetch(`${server.baseUrl}/api/v1/lists`, { headers: { Authorization: `Bearer ${renewed.token}` } })).status).toBe(401);
  }, 120_000);

  it('prints a bash completion script that completes commands, options and choices', async () => {
    const script = (await cli(['completion', 'bash'])).stdout;
    const complete = async (...words: string[]) => {
      const probe = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _listkeeper; echo "\${COMPREPLY[*]}"`;
      return new Promise<string>((resolve, reject) =>
        execFile('bash', ['-c', probe], (err, out, errOut) => (err ? reject(new Error(errOut)) : resolve(out.trim()))),
      );
    };
    expect(await complete('listkeeper', 'lo')).toBe('login logout');
    expect(await complete('listkeeper', 'apikey', 'c')).toBe('create');
    expect(await complete('listkeeper', 'search', 're')).toBe('reindex');
    expect(await complete('listkeeper', 'edit', 'milk', '--status', '')).toBe('todo in-progress done');
    expect(await complete('listkeeper', 'ls', '--j')).toBe('--json');
    expect((await cli(['completion', 'zsh'])).stdout).toMatch(
      /^#compdef listkeeper\n[\s\S]*'login:Sign in to a running listkeeper once: in the browser \(OAuth\), or with an API key\.'/,
    );
  });
});
