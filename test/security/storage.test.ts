/**
 * Finding 7: image downloads are capped per call (URLs, bytes, seconds), each account has a
 * storage quota (reported by get_context, enforced on slots, uploads and downloads), and
 * expired upload slots are cleaned away with the files nobody attached.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { rm } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useTestServer, type TestAccount } from '../support/server.js';
import { PNG } from '../support/images.js';
import type { OperationContext } from '../../src/core/context.js';
import { create_items } from '../../src/operations/create_items.js';
import { create_image_upload } from '../../src/operations/create_image_upload.js';
import { get_context } from '../../src/operations/get_context.js';
import { removeExpiredUploads } from '../../src/domain/media/storage.js';
import { fileStore } from '../../src/files/open.js';
import { ApiError } from '../../src/core/errors.js';
import { REACH_LOCAL_SERVERS, startLocalServer, type LocalServer } from '../support/net.js';

const MB = 1024 * 1024;
/** A PNG of `bytes` bytes: the signature and header the sniffer checks, then padding. */
const png = (bytes: number) => Buffer.concat([PNG, Buffer.alloc(bytes - PNG.length)]);

describe('image limits and storage quota', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lk-quota-'));
  const { server, ada } = useTestServer({
    env: { LISTKEEPER_DATA_DIR: dataDir, ...REACH_LOCAL_SERVERS, STORAGE_QUOTA_MB: '1' },
    beforeClose: () => origin.close(),
  });
  let origin: LocalServer;
  let originUrl: string;
  beforeAll(async () => {
    // A stand-in image host: /kb/<n>/<name> answers a PNG of n KiB; /slow answers after 3 seconds.
    origin = await startLocalServer((req, res) => {
      const sized = /^\/kb\/(\d+)\//.exec(req.url ?? '');
      if (sized) return void res.writeHead(200, { 'content-type': 'image/png' }).end(png(Number(sized[1]) * 1024));
      if (req.url === '/slow') return void setTimeout(() => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG), 3000);
      res.writeHead(404).end();
    });
    originUrl = origin.url;
  });
  // After useTestServer's afterAll (jest runs them in the order declared): the server is closed first.
  afterAll(async () => rm(dataDir, { recursive: true, force: true }));

  /** Ada's context with other download limits than the server's. */
  function withLimits(account: TestAccount, limits: Partial<OperationContext['config']['imageDownloads']>): OperationContext {
    const ctx = server.context(account);
    return { ...ctx, config: { ...ctx.config, imageDownloads: { ...ctx.config.imageDownloads, ...limits } } };
  }

  async function put(uploadUrl: string, bytes: Buffer): Promise<{ status: number; body: { error?: string } }> {
    const res = await fetch(uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: new Uint8Array(bytes) });
    return { status: res.status, body: (await res.json()) as { error?: string } };
  }

  it('downloads at most IMAGE_URLS_PER_REQUEST URLs in one call and says so for the rest', async () => {
    const bob = await server.account('Bob');
    const urls = [1, 2, 3].map((n) => `${originUrl}/kb/1/${n}.png`);
    const made = await create_items(withLimits(bob, { urlsPerRequest: 2 }), { items: [{ title: 'Three pictures', imageUrls: urls }] });
    expect(made.imagesAttached).toBe(2);
    expect(made.imageFailures).toHaveLength(1);
    expect(made.imageFailures[0]!.reason).toMatch(/at most 2 image URLs \(IMAGE_URLS_PER_REQUEST\)/);
  });

  it('stops at IMAGE_BYTES_PER_REQUEST bytes in all, across parallel downloads', async () => {
    const bob = await server.account('Bob');
    const urls = [1, 2, 3, 4].map((n) => `${originUrl}/kb/100/${n}.png`);
    const made = await create_items(withLimits(bob, { bytesPerRequest: 250 * 1024 }), { items: [{ title: 'Four pictures', imageUrls: urls }] });
    expect(made.imagesAttached).toBe(2);
    expect(made.imageFailures.map((f) => f.reason)).toEqual([
      expect.stringMatching(/in all \(IMAGE_BYTES_PER_REQUEST\)/),
      expect.stringMatching(/in all \(IMAGE_BYTES_PER_REQUEST\)/),
    ]);
  });

  it('gives all the downloads of one call IMAGE_SECONDS_PER_REQUEST seconds, not 20 each', async () => {
    const bob = await server.account('Bob');
    const started = Date.now();
    const made = await create_items(withLimits(bob, { secondsPerRequest: 1 }), { items: [{ title: 'Slow', imageUrls: [`${originUrl}/slow`] }] });
    expect(made.imagesAttached).toBe(0);
    expect(made.imageFailures[0]!.reason).toMatch(/within 1 seconds/);
    // The slow host answers after 3 seconds; the call gave up at its budget.
    expect(Date.now() - started).toBeLessThan(2900);
  });

  it('reports storage in get_context and refuses uploads and downloads beyond the quota', async () => {
    const ctx = server.context(ada);
    expect((await get_context(ctx, {})).storage).toEqual({ usedBytes: 0, quotaBytes: MB });

    const [first] = (await create_image_upload(ctx, { mimeType: 'image/png' })).uploads;
    const tooBig = await put(first!.uploadUrl, png(1.5 * MB));
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error).toMatch(/^Upload refused: the images of your account may take 1 MB in all \(STORAGE_QUOTA_MB\), and 1 MB of it is left/);

    expect((await put(first!.uploadUrl, png(600 * 1024))).status).toBe(200);
    expect((await get_context(ctx, {})).storage).toEqual({ usedBytes: 600 * 1024, quotaBytes: MB });

    const slots = await create_image_upload(ctx, { mimeType: 'image/png' });
    expect(slots.maxBytes).toBe(MB - 600 * 1024);
    const second = await put(slots.uploads[0]!.uploadUrl, png(600 * 1024));
    expect(second.status).toBe(400);
    expect(second.body.error).toMatch(/and 0\.4 MB of it is left; delete items with images to make room/);

    const made = await create_items(ctx, { items: [{ title: 'Big', imageUrls: [`${originUrl}/kb/600/big.png`, first!.bucketPath] }] });
    expect(made.imagesAttached).toBe(1);
    expect(made.imageFailures[0]!.reason).toMatch(
      /Could not attach this image: the images of your account may take 1 MB in all \(STORAGE_QUOTA_MB\), and 0\.4 MB of it is left/,
    );
    // Attached, the upload counts once.
    expect((await get_context(ctx, {})).storage.usedBytes).toBe(600 * 1024);

    const filled = await put((await create_image_upload(ctx, { mimeType: 'image/png' })).uploads[0]!.uploadUrl, png(MB - 600 * 1024));
    expect(filled.status).toBe(200);
    const refused = await create_image_upload(ctx, { mimeType: 'image/png' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).message).toMatch(/^The images of your account may take 1 MB in all \(STORAGE_QUOTA_MB\), and none of it is left/);
  });

  it('removes slots a day past their expiry, with the files no item attached', async () => {
    const carol = await server.account('Carol');
    const ctx = server.context(carol);
    const [unused, orphan, kept, fresh] = (await create_image_upload(ctx, { mimeType: 'image/png', count: 4 })).uploads;
    for (const slot of [orphan, kept, fresh]) expect((await put(slot!.uploadUrl, PNG)).status).toBe(200);
    const made = await create_items(ctx, { items: [{ title: 'Kept', imageUrls: [kept!.bucketPath] }] });
    expect(made.imagesAttached).toBe(1);
    const expired = [unused, orphan, kept].map((s) => s!.bucketPath);
    await server
      .db('uploads')
      .whereIn('bucket_path', expired)
      .update({ expires_at: new Date(Date.now() - 25 * 3600_000) });
    await server
      .db('uploads')
      .where({ bucket_path: fresh!.bucketPath })
      .update({ expires_at: new Date(Date.now() - 3600_000) });

    const removed = await removeExpiredUploads(server.db, server.config, new Date(), { warn: () => undefined });
    expect(removed).toEqual({ slots: 3, files: 1 });
    expect(await server.db('uploads').where({ owner_id: carol.userId }).pluck('bucket_path')).toEqual([fresh!.bucketPath]);
    const store = fileStore(server.config);
    expect(await store.read(orphan!.bucketPath)).toBeNull();
    expect(await store.read(kept!.bucketPath)).not.toBeNull();
    expect(await store.read(fresh!.bucketPath)).not.toBeNull();
    // The attached image still counts; the removed orphan no longer does.
    expect((await get_context(ctx, {})).storage.usedBytes).toBe(2 * PNG.length);
  });
});
