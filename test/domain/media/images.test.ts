/** imageUrls on create_items and update_items, attachments with signed URLs, bodyImages, and the download guard. */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { readdir, readFile, rm } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useTestServer } from '../../support/server.js';
import { HEIC, JPEG, PNG } from '../../support/images.js';
import { create_items } from '../../../src/operations/create_items.js';
import { update_items } from '../../../src/operations/update_items.js';
import { get_item } from '../../../src/operations/get_item.js';
import { create_image_upload } from '../../../src/operations/create_image_upload.js';
import { REACH_LOCAL_SERVERS, startLocalServer, type LocalServer } from '../../support/net.js';

describe('images on items', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lk-images-'));
  const { server, ada } = useTestServer({ env: { LISTKEEPER_DATA_DIR: dataDir, ...REACH_LOCAL_SERVERS }, beforeClose: () => origin.close() });
  let origin: LocalServer;
  let originUrl: string;
  beforeAll(async () => {
    // A stand-in for a public image host.
    origin = await startLocalServer((req, res) => {
      const routes: Record<string, () => void> = {
        '/cat.jpg': () => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(JPEG),
        '/photo.heic': () => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(HEIC),
        '/page.png': () => res.writeHead(200, { 'content-type': 'image/png' }).end('<html>not an image</html>'),
        '/huge.png': () => {
          res.writeHead(200, { 'content-type': 'image/png' });
          res.write(PNG);
          const chunk = Buffer.alloc(1024 * 1024);
          let left = 12;
          const more = () => {
            while (left > 0) {
              left--;
              if (!res.write(chunk)) return void res.once('drain', more);
            }
            res.end();
          };
          more();
        },
        '/moved': () => res.writeHead(302, { location: '/cat.jpg' }).end(),
      };
      (routes[req.url ?? ''] ?? (() => res.writeHead(404).end()))();
    });
    originUrl = origin.url;
  });
  // After useTestServer's afterAll (jest runs them in the order declared): the server is closed first.
  afterAll(async () => rm(dataDir, { recursive: true, force: true }));
  const ctx = () => server.context(ada);

  async function uploaded(bytes = PNG): Promise<string> {
    const [slot] = (await create_image_upload(ctx(), { mimeType: 'image/png' })).uploads;
    const res = await fetch(slot!.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: bytes });
    expect(res.status).toBe(200);
    return slot!.bucketPath;
  }

  it('attaches an uploaded slot by its bucket path; get_item shows it with a signed URL that serves the bytes', async () => {
    const bucketPath = await uploaded();
    const made = await create_items(ctx(), { items: [{ title: 'Receipt', imageUrls: [bucketPath] }] });
    expect(made.imagesAttached).toBe(1);
    expect(made.imageFailures).toEqual([]);
    const plain = await get_item(ctx(), { id: made.items[0]!.id });
    expect(plain.attachments).toEqual([{ id: expect.any(String), bucketPath, mimeType: 'image/png', bytes: PNG.length }]);
    const item = await get_item(ctx(), { id: made.items[0]!.id, includeImageUrls: true });
    const url = item.attachments[0]!.url!;
    expect(url).toMatch(new RegExp(`^${server.baseUrl}/files/${bucketPath}\\?expires=\\d+&sig=`));
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(PNG);
    // The upload URL's signature does not open a download, nor a tampered one.
    expect((await fetch(url.replace(/sig=[^&]+/, 'sig=AAAA'))).status).toBe(403);
  });

  it('reports each URL that cannot be attached under imageFailures and still saves the item', async () => {
    const [empty] = (await create_image_upload(ctx(), { mimeType: 'image/png' })).uploads;
    const bob = await server.account('Bob');
    const [bobs] = (await create_image_upload(server.context(bob), { mimeType: 'image/png' })).uploads;
    const made = await create_items(ctx(), {
      items: [
        { title: 'A' },
        {
          title: 'With bad images',
          imageUrls: [empty!.bucketPath, bobs!.bucketPath, 'not a url', `${originUrl}/missing.png`, `${originUrl}/page.png`, `${originUrl}/huge.png`],
        },
      ],
    });
    expect(made.added).toBe(2);
    expect(made.imagesAttached).toBe(0);
    expect(made.imageFailures.map((f) => [f.index, f.url, f.reason])).toEqual([
      [1, empty!.bucketPath, expect.stringMatching(/Nothing was uploaded to .* yet/)],
      [1, bobs!.bucketPath, expect.stringMatching(/No upload slot .* of yours/)],
      [1, 'not a url', expect.stringMatching(/'not a url' is not an absolute URL/)],
      [1, `${originUrl}/missing.png`, expect.stringMatching(/answered HTTP 404/)],
      [1, `${originUrl}/page.png`, expect.stringMatching(/not a PNG, JPEG, HEIC or WebP image/)],
      [1, `${originUrl}/huge.png`, expect.stringMatching(/larger than 10485760 bytes/)],
    ]);
    expect(made.imageFailures.every((f) => f.itemId === made.items[1]!.id)).toBe(true);
  });

  it('downloads a public image URL (following a redirect), typed by its magic bytes, and stores it', async () => {
    const made = await create_items(ctx(), { items: [{ title: 'Cat', imageUrls: [`${originUrl}/moved`, `${originUrl}/photo.heic`] }] });
    expect(made.imagesAttached).toBe(2);
    const { attachments } = await get_item(ctx(), { id: made.items[0]!.id });
    expect(attachments.map((a) => [a.mimeType, a.bytes])).toEqual([
      ['image/jpeg', JPEG.length],
      ['image/heic', HEIC.length],
    ]);
    expect(attachments[0]!.bucketPath).toMatch(/\.jpg$/);
    expect(await readFile(path.join(dataDir, 'files', attachments[0]!.bucketPath))).toEqual(JPEG);
    const row = await server.db('attachments').where({ bucket_path: attachments[0]!.bucketPath }).first();
    expect(row.source_url).toBe(`${originUrl}/moved`);
  });

  it('deletes what it downloaded for entries that were not saved, and all of it when the write fails', async () => {
    const cleo = await server.account('Cleo');
    const cleoCtx = server.context(cleo);
    const stored = async () => (await readdir(path.join(dataDir, 'files', 'u', cleo.userId)).catch(() => [] as string[])).sort();
    const attachedPaths = async () =>
      ((await server.db('attachments').where({ owner_id: cleo.userId }).pluck('bucket_path')) as string[]).map((p) => path.basename(p)).sort();

    // Entry 1 is refused (a value for a property the list does not have): its download goes.
    const made = await create_items(cleoCtx, {
      items: [
        { title: 'Kept', imageUrls: [`${originUrl}/cat.jpg`] },
        { title: 'Refused', values: { Nope: 'x' }, imageUrls: [`${originUrl}/photo.heic`] },
      ],
    });
    expect([made.added, made.failed.length, made.imagesAttached]).toEqual([1, 1, 1]);
    expect(await stored()).toEqual(await attachedPaths());
    expect(await stored()).toHaveLength(1);

    // The whole write fails (no such list): nothing it downloaded stays.
    await expect(
      create_items(cleoCtx, { listId: '00000000-0000-4000-8000-000000000000', items: [{ title: 'Lost', imageUrls: [`${originUrl}/photo.heic`] }] }),
    ).rejects.toMatchObject({ code: 'notFound' });
    expect(await stored()).toHaveLength(1);

    // update_items stops at a refused entry: the downloads of that entry and of the ones after it go.
    const id = made.items[0]!.id;
    await expect(
      update_items(cleoCtx, {
        items: [
          { itemId: id, imageUrls: [`${originUrl}/moved`] },
          { itemId: '00000000-0000-4000-8000-000000000000', imageUrls: [`${originUrl}/photo.heic`] },
        ],
      }),
    ).rejects.toMatchObject({ code: 'notFound' });
    expect(await stored()).toEqual(await attachedPaths());
    expect(await stored()).toHaveLength(2);
  });

  it.each([
    ['http://127.0.0.1:9/x.png', /only https URLs are fetched/],
    ['https://127.0.0.1/x.png', /127\.0\.0\.1 is a private, loopback or reserved address/],
    ['https://10.0.0.8/x.png', /10\.0\.0\.8 is a private/],
    ['https://169.254.169.254/latest/meta-data', /169\.254\.169\.254 is a private/],
    ['https://[::1]/x.png', /::1 is a private/],
    ['https://[::ffff:127.0.0.1]/x.png', /::ffff:7f00:1 is a private/],
    ['https://localhost/x.png', /localhost is not allowed: it does not resolve to a public address/],
  ])('refuses to download %s without the dev setting (SSRF)', async (url, reason) => {
    const strict = { ...ctx(), config: { ...server.config, outboundAllowPrivate: false } };
    const made = await create_items(strict, { items: [{ title: 'SSRF', imageUrls: [url] }] });
    expect(made.added).toBe(1);
    expect(made.imageFailures).toEqual([{ index: 0, itemId: made.items[0]!.id, url, reason: expect.stringMatching(reason) }]);
  });

  it('update_items attaches images and counts them; clearImages drops the old ones first', async () => {
    const [first, second] = [await uploaded(), await uploaded()];
    const made = await create_items(ctx(), { items: [{ title: 'Album', imageUrls: [first] }] });
    const id = made.items[0]!.id;
    const added = await update_items(ctx(), { items: [{ itemId: id, imageUrls: [second, `${originUrl}/cat.jpg`] }] });
    expect(added).toMatchObject({ imagesAttached: 2, imageFailures: [] });
    expect((await get_item(ctx(), { id })).attachments.map((a) => a.bucketPath)).toEqual([first, second, expect.stringMatching(/\.jpg$/)]);
    const cleared = await update_items(ctx(), { items: [{ itemId: id, clearImages: true, imageUrls: [first] }] });
    expect(cleared.imagesAttached).toBe(1);
    expect((await get_item(ctx(), { id })).attachments.map((a) => a.bucketPath)).toEqual([first]);
    await update_items(ctx(), { items: [{ itemId: id, clearImages: true }] });
    expect((await get_item(ctx(), { id })).attachments).toEqual([]);
  });

  it('shows the pictures the body shows under bodyImages, with their stored size', async () => {
    const bucketPath = await uploaded();
    const body = `Before\n\n![the receipt](listkeeper-attachment://attachment/${bucketPath})\n\n![elsewhere](listkeeper-attachment://attachment/u/${ada.userId}/00000000-0000-4000-8000-000000000000.png)`;
    const made = await create_items(ctx(), { items: [{ title: 'Expense', body, imageUrls: [bucketPath] }] });
    const item = await get_item(ctx(), { id: made.items[0]!.id });
    expect(item.bodyImages).toEqual([
      { bucketPath, alt: 'the receipt', bytes: PNG.length },
      { bucketPath: `u/${ada.userId}/00000000-0000-4000-8000-000000000000.png`, alt: 'elsewhere', bytes: null },
    ]);
  });

  it('works the same over REST and MCP', async () => {
    const bucketPath = await uploaded();
    const rest = await ada.sdk.POST('/items', { body: { items: [{ title: 'Via REST', imageUrls: [bucketPath] }] } });
    expect(rest.response.status).toBe(201);
    expect(rest.data).toMatchObject({ imagesAttached: 1, imageFailures: [] });
    const id = rest.data!.items[0]!.id;
    const mcp = await server.mcp(ada);
    const read = await mcp.callTool({ name: 'get_item', arguments: { id, includeImageUrls: true } });
    const attachments = (read.structuredContent as { attachments: { url: string }[] }).attachments;
    expect((await fetch(attachments[0]!.url)).status).toBe(200);
    const updated = await mcp.callTool({ name: 'update_items', arguments: { items: [{ itemId: id, imageUrls: ['https://10.0.0.1/x.png'] }] } });
    expect(updated.structuredContent).toMatchObject({ imagesAttached: 0, imageFailures: [{ url: 'https://10.0.0.1/x.png' }] });
    const listed = await ada.sdk.GET('/items', { params: { query: { ids: [id], includeImageUrls: true } } });
    expect(listed.data!.items[0]!.attachments![0]!.url).toMatch(/\/files\/u\//);
  });
});
