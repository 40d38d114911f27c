/**
 * The backup docs/deploy.md gives for the embedded default, restored: stop the service, copy
 * its data folder (the embedded Postgres cluster and the file store together), start a service
 * on the copy elsewhere; the items, their bodies and their image bytes are all there.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { childEnv } from '../support/env.js';
import { startServiceProcess, type ServiceProcess } from '../support/cluster.js';
import { expectSampleRestored, writeSample } from '../support/backup-sample.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname ?? '.', '../..');
const cli = path.join(root, 'bin/listkeeper.js');

describe('backup and restore of the embedded default', () => {
  let dir: string;
  const running: ServiceProcess[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lk-backup-'));
    await chmod(dir, 0o755);
  });
  afterAll(async () => {
    // SIGTERM: the service stops its embedded Postgres too (a SIGKILL leaves it writing into
    // the folder being removed); the retries cover a Postgres still exiting.
    for (const service of running) await service.stop('SIGTERM');
    await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
  });

  it('restores items, bodies and images from a copy of the data folder', async () => {
    const original = path.join(dir, 'data');
    const settings = { EMBEDDINGS: 'none' };
    const first = await startServiceProcess('original', { ...settings, LISTKEEPER_DATA_DIR: original });
    running.push(first);
    const env = childEnv({ LISTKEEPER_DATA_DIR: original });
    await run(process.execPath, [cli, 'user', 'create', '--email', 'ada@example.com'], { env });
    const key = (await run(process.execPath, [cli, 'apikey', 'create', '--email', 'ada@example.com'], { env })).stdout.trim();
    const sample = await writeSample(first.url, key);

    // The backup: stop the service (SIGTERM drains it), copy the folder whole.
    expect(await first.stop('SIGTERM')).toBe(0);
    const restored = path.join(dir, 'restored');
    await run('cp', ['-a', original, restored]);

    const second = await startServiceProcess('restored', { ...settings, LISTKEEPER_DATA_DIR: restored });
    running.push(second);
    await expectSampleRestored(second.url, key, sample);
  }, 180_000);
});
