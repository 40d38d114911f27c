/**
 * Where `listkeeper login` keeps the person's sign-in: `$XDG_CONFIG_HOME/listkeeper/credentials.json`
 * (default ~/.config), readable by its owner only. Writes replace the file whole (a rename), and
 * a lock file serialises token refreshes, because a rotated refresh token used twice ends the
 * whole connection on the server.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { OAuthSession as SdkSession } from '@listkeeper/sdk/oauth';

/** The OAuth side of a sign-in made in the browser (the SDK's session, its access token kept in `token`). */
export type OAuthSession = Omit<SdkSession, 'accessToken'>;

export interface Credentials {
  /** The service's address, as the person gave it. */
  url: string;
  method: 'apiKey' | 'oauth';
  /** The API key, or the OAuth access token. */
  token: string;
  email?: string | undefined;
  /** The person's time zone when they signed in (dates in tables are shown in it). */
  timezone?: string | undefined;
  oauth?: OAuthSession | undefined;
}

/** The credentials file's path. */
export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(os.homedir(), '.config');
  return path.join(base, 'listkeeper', 'credentials.json');
}

/** The saved sign-in, or null when there is none. */
export async function readCredentials(file = credentialsPath()): Promise<Credentials | null> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as Credentials;
    if (typeof parsed.url !== 'string' || typeof parsed.token !== 'string') throw new Error('url or token missing');
    return parsed;
  } catch (err) {
    throw new Error(`${file} is not a listkeeper sign-in (${(err as Error).message}); delete it or run 'listkeeper login' again.`);
  }
}

/** Saves the sign-in: folder 0700, file 0600, replaced in one rename. */
export async function writeCredentials(credentials: Credentials, file = credentialsPath()): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await fs.rename(temporary, file);
}

/** Deletes the saved sign-in; false when there was none. */
export async function removeCredentials(file = credentialsPath()): Promise<boolean> {
  try {
    await fs.unlink(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** A lock left by a process that died while refreshing is taken over after this long. */
const STALE_LOCK_MS = 30_000;

/** Runs `work` while holding the credentials lock (another listkeeper command waits for it). */
export async function withCredentialsLock<T>(work: () => Promise<T>, file = credentialsPath()): Promise<T> {
  const lock = `${file}.lock`;
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  for (let waited = 0; ; waited += 100) {
    try {
      await (await fs.open(lock, 'wx', 0o600)).close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = await fs.stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > STALE_LOCK_MS) await fs.rm(lock, { force: true });
      else if (waited > STALE_LOCK_MS) throw new Error(`${lock} is held by another listkeeper command; delete it if none runs.`);
      else await sleep(100);
    }
  }
  try {
    return await work();
  } finally {
    await fs.rm(lock, { force: true });
  }
}
