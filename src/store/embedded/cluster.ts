import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { BINARIES_MAJOR } from './binaries.js';
import { isErrno } from './fs-helpers.js';

const execFileAsync = promisify(execFile);

/** True when clusterDir holds no cluster yet; refuses a cluster made by another major version. */
export async function needsInitdb(clusterDir: string): Promise<boolean> {
  let version: string;
  try {
    version = (await fs.readFile(path.join(clusterDir, 'PG_VERSION'), 'utf8')).trim();
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return true;
    throw error;
  }
  if (version !== BINARIES_MAJOR) {
    throw new Error(
      `The cluster in ${clusterDir} was created by Postgres ${version}, but the embedded binaries are Postgres ${BINARIES_MAJOR}; ` +
        `upgrade it with pg_upgrade or point the data directory elsewhere.`,
    );
  }
  return false;
}

/** Random per-cluster superuser password, so other local users cannot log in with a well-known one. */
export async function loadPassword(dataDir: string, firstRun: boolean): Promise<string> {
  const file = path.join(dataDir, 'superuser-password');
  try {
    return (await fs.readFile(file, 'utf8')).trim();
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
    if (!firstRun) {
      throw new Error(`${file} is missing, so the existing cluster in ${path.join(dataDir, 'pgdata')} cannot be logged into.`);
    }
  }
  const password = randomBytes(24).toString('base64url');
  await fs.writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/** UTF8 with a UTF-8 ctype when the OS has one: pg_trgm only treats non-ASCII letters as word characters then. */
export async function initdbLocaleFlags(): Promise<string[]> {
  try {
    const { stdout } = await execFileAsync('locale', ['-a']);
    const available = new Set(stdout.split('\n').map((l) => l.trim().toLowerCase().replace('utf-8', 'utf8')));
    for (const candidate of ['C.UTF-8', 'en_US.UTF-8']) {
      if (available.has(candidate.toLowerCase().replace('utf-8', 'utf8'))) {
        return ['--encoding=UTF8', `--locale=${candidate}`];
      }
    }
  } catch {
    // No `locale` command: fall through to the always-present C locale.
  }
  return ['--encoding=UTF8', '--no-locale'];
}
