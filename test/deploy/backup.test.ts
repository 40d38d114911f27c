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
import { startServiceProcess, type ServiceProcess } from '../support/cluster.js';
import { PNG } from '../support/images.js';

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
    for (const service of running) await service.stop('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('restores items, bodies and images from a copy of the data folder', async () => {
    const original = path.join(dir, 'data');
    const settings = { EMBEDDINGS: 'none' };
    const first = await startServiceProcess('original', { ...settings, LISTKEEPER_DATA_DIR: original });
    running.push(first);
    const { DATABASE_URL: _testDatabase, ...parent } = process.env;
    const env = { ...parent, LISTKEEPER_DATA_DIR: original };
    await run(process.execPath, [cli, 'user', 'create', '--email', 'ada@example.com'], { env });
    const key = (await run(process.execPath, [cli, 'apikey', 'create', '--email', 'ada@example.com'], { env })).stdout.trim();
    const call = async (base: string, method: string, route: string, body?: unknown) => {
      const answer = await fetch(`${base}/api/v1${route}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return (await answer.json()) as Record<string, unknown>;
    };

    const slot = ((await call(first.url, 'POST', '/uploads', { mimeType: 'image/png', count: 1 })).uploads as { uploadUrl: string; bucketPath: string }[])[0]!;
    expect((await fetch(slot.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: new Uint8Array(PNG) })).status).toBe(200);
    const made = await call(first.url, 'POST', '/items', {
      listId: 'notes',
      items: [
        { title: 'Boiler manual', body: '# Boiler\n\n- reset: hold 5 s', imageUrls: [slot.bucketPath] },
        { title: 'Wi-Fi password', body: 'on the router' },
      ],
    });
    const ids = (made.items as { id: string }[]).map((item) => item.id);
    const before = await call(first.url, 'GET', `/items?listId=notes&ids=${ids.join(',')}`);

    // The backup: stop the service (SIGTERM drains it), copy the folder whole.
    expect(await first.stop('SIGTERM')).toBe(0);
    const restored = path.join(dir, 'restored');
    await run('cp', ['-a', original, restored]);

    const second = await startServiceProcess('restored', { ...settings, LISTKEEPER_DATA_DIR: restored });
    running.push(second);
    const after = await call(second.url, 'GET', `/items?listId=notes&ids=${ids.join(',')}`);
    const strip = (page: Record<string, unknown>) =>
      (page.items as Record<string, unknown>[]).map(({ id, title, values, createdAt, updatedAt }) => ({ id, title, values, createdAt, updatedAt }));
    expect(strip(after)).toEqual(strip(before));
    const manual = await call(second.url, 'GET', `/items/${ids[0]}?includeImageUrls=true`);
    expect(manual.body).toBe('# Boiler\n\n- reset: hold 5 s');
    const [attachment] = manual.attachments as { url: string }[];
    expect(Buffer.from(await (await fetch(attachment!.url)).arrayBuffer())).toEqual(PNG);
  }, 180_000);
});
