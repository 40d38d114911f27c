/**
 * The backup docs/deploy.md gives for Postgres of your own, restored: pg_dump of the database
 * while the service runs, then the file store; pg_restore into an empty database and a service
 * started on it and the copied files finds every item, body and image again.
 *
 * pg_dump refuses a server newer than itself, and no pg_dump for Postgres 17 (the embedded
 * default) is packaged for these machines, so this runs on Debian's Postgres 15, server and
 * tools (`make pg-tools` installs them), which listkeeper supports as well.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import knexFactory from 'knex';
import { createUser } from '../../src/domain/accounts/accounts.js';
import { createApiKey } from '../../src/domain/accounts/api-keys.js';
import { resolveRunAsUser } from '../../src/store/embedded/run-as-user.js';
import { startServiceProcess, type ServiceProcess } from '../support/cluster.js';
import { expectSampleRestored, writeSample } from '../support/backup-sample.js';
import { freePort } from '../support/net.js';

const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';

describe('backup and restore with pg_dump', () => {
  let dir: string;
  let cluster: string;
  let port: number;
  let as: { uid?: number; gid?: number } = {};
  const running: ServiceProcess[] = [];
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const pg = (tool: string, args: string[]) => run(path.join(BIN, tool), args, { ...as, maxBuffer: 64 * 1024 * 1024 });

  beforeAll(async () => {
    if (!existsSync(path.join(BIN, 'pg_dump')) || !existsSync(path.join(BIN, 'postgres')))
      throw new Error(`Postgres 15 is missing in ${BIN}: run 'make pg-tools' (make test does).`);
    dir = await mkdtemp(path.join(os.tmpdir(), 'lk-pgdump-'));
    await chmod(dir, 0o755);
    cluster = path.join(dir, 'cluster');
    // Postgres refuses root: as root, the server and its tools run as the embedded default's user.
    const runAs = await resolveRunAsUser();
    if (runAs?.ids) {
      as = runAs.ids;
      await chown(dir, runAs.ids.uid, runAs.ids.gid);
    }
    port = await freePort();
    await pg('initdb', ['-D', cluster, '-U', 'postgres', '--auth=trust', '--no-sync']);
    await pg('pg_ctl', [
      '-D',
      cluster,
      '-l',
      path.join(dir, 'postgres.log'),
      '-w',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
    await pg('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'listkeeper']);
  }, 120_000);

  afterAll(async () => {
    for (const service of running) await service.stop('SIGKILL');
    if (cluster) await pg('pg_ctl', ['-D', cluster, '-m', 'immediate', 'stop']).catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
  }, 60_000);

  it('restores items, bodies and images from a dump and a copy of the file store', async () => {
    const files = path.join(dir, 'data');
    const first = await startServiceProcess('dumped', { DATABASE_URL: url('listkeeper'), LISTKEEPER_DATA_DIR: files, EMBEDDINGS: 'none' });
    running.push(first);
    const db = knexFactory({ client: 'pg', connection: url('listkeeper') });
    const user = await createUser(db, { email: 'ada@example.com', name: 'Ada', timezone: 'Europe/London' });
    const key = await createApiKey(db, user.id);
    await db.destroy();
    const sample = await writeSample(first.url, key);

    // The backup, while the service runs: the database first, then the files.
    const dump = path.join(dir, 'listkeeper.dump');
    await pg('pg_dump', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-Fc', '-f', dump, 'listkeeper']);
    const filesCopy = path.join(dir, 'files-backup');
    await run('cp', ['-a', files, filesCopy]);
    expect(await first.stop('SIGTERM')).toBe(0);

    // The restore: an empty database, pg_restore, a service on it and the copied files.
    await pg('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'restored']);
    await pg('pg_restore', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'restored', '--no-owner', dump]);
    const second = await startServiceProcess('restored', { DATABASE_URL: url('restored'), LISTKEEPER_DATA_DIR: filesCopy, EMBEDDINGS: 'none' });
    running.push(second);
    await expectSampleRestored(second.url, key, sample);
  }, 180_000);
});
