import { describe, it, expect, afterAll } from '@jest/globals';
import http from 'node:http';
import { readFile, readdir, rm } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useTestServer } from '../support/server.js';
import { create_image_upload } from '../../src/operations/create_image_upload.js';
import { JPEG, PNG } from '../support/images.js';

/** PUTs `body` to `url` with plain node http (streams a generator body without a length). */
function put(url: string, body: Buffer | (() => AsyncGenerator<Buffer>), contentType: string): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'PUT', headers: { 'content-type': contentType, ...(Buffer.isBuffer(body) ? { 'content-length': String(body.length) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res
          .on('data', (c: Buffer) => chunks.push(c))
          .on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(Buffer.concat(chunks).toString() || '{}') }));
      },
    );
    // The server may answer and close while the body is still going out.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    if (Buffer.isBuffer(body)) req.end(body);
    else
      void (async () => {
        for await (const chunk of body()) if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
        req.end();
      })().catch(() => undefined);
  });
}

describe('create_image_upload and the upload URL', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lk-files-'));
  const { server, ada } = useTestServer({ env: { LISTKEEPER_DATA_DIR: dataDir } });
  // After useTestServer's afterAll (jest runs them in the order declared): the server is closed first.
  afterAll(async () => rm(dataDir, { recursive: true, force: true }));
  const slot = async (mimeType: 'image/png' | 'image/jpeg' | 'image/webp' | 'image/heic' = 'image/png') =>
    (await create_image_upload(server.context(ada), { mimeType, count: 1 })).uploads[0]!;

  it('hands out 1 to 10 signed slots with maxBytes 10 MB and validForSeconds 7200', async () => {
    const result = await create_image_upload(server.context(ada), { mimeType: 'image/webp', count: 3 });
    expect(result.maxBytes).toBe(10 * 1024 * 1024);
    expect(result.validForSeconds).toBe(7200);
    expect(result.uploads).toHaveLength(3);
    for (const s of result.uploads) {
      expect(s.bucketPath).toMatch(new RegExp(`^u/${ada.userId}/[0-9a-f-]{36}\\.webp$`));
      expect(s.uploadUrl).toMatch(new RegExp(`^${server.baseUrl}/files/${s.bucketPath}\\?expires=\\d+&sig=[\\w-]+$`));
      const expires = Number(new URL(s.uploadUrl).searchParams.get('expires'));
      expect(expires * 1000 - Date.now()).toBeGreaterThan(7190 * 1000);
    }
    expect(new Set(result.uploads.map((s) => s.bucketPath)).size).toBe(3);
  });

  it('is 201 over REST with count defaulting to 1, the same shape over MCP, and refuses other types and counts', async () => {
    const rest = await ada.sdk.POST('/uploads', { body: { mimeType: 'image/heic' } });
    expect(rest.response.status).toBe(201);
    expect(rest.data!.uploads).toHaveLength(1);
    const mcp = await (await server.mcp(ada)).callTool({ name: 'create_image_upload', arguments: { mimeType: 'image/jpeg', count: 2 } });
    expect((mcp.structuredContent as { uploads: unknown[] }).uploads).toHaveLength(2);
    for (const body of [{ mimeType: 'image/gif' }, { mimeType: 'image/png', count: 11 }, { mimeType: 'image/png', count: 0 }]) {
      const res = await fetch(`${server.baseUrl}/api/v1/uploads`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ada.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
    }
  });

  it('accepts the bytes at the upload URL and stores them under the bucket path', async () => {
    const s = await slot();
    const res = await put(s.uploadUrl, PNG, 'image/png');
    expect(res).toEqual({ status: 200, json: { bucketPath: s.bucketPath, mimeType: 'image/png', bytes: PNG.length } });
    expect(await readFile(path.join(dataDir, 'files', s.bucketPath))).toEqual(PNG);
    expect(await server.db('uploads').where({ bucket_path: s.bucketPath }).first()).toMatchObject({ bytes: PNG.length, uploaded_at: expect.any(Date) });
    const again = await put(s.uploadUrl, PNG, 'image/png');
    expect(again).toMatchObject({ status: 409, json: { code: 'toolError' } });
  });

  it("refuses a Content-Type other than the slot's, and bytes that are not the declared image", async () => {
    const s = await slot('image/png');
    expect(await put(s.uploadUrl, JPEG, 'image/jpeg')).toMatchObject({
      status: 400,
      json: { code: 'invalid', error: expect.stringMatching(/Content-Type must be image\/png.*received 'image\/jpeg'/) },
    });
    expect(await put(s.uploadUrl, JPEG, 'image/png')).toMatchObject({
      status: 400,
      json: { code: 'invalid', error: expect.stringMatching(/bytes are image\/jpeg, not the declared image\/png/) },
    });
    expect(await put(s.uploadUrl, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/png')).toMatchObject({
      status: 400,
      json: { error: expect.stringMatching(/not a PNG, JPEG, HEIC or WebP/) },
    });
    // Nothing refused was kept, and the slot can still take the right bytes.
    expect(
      await readdir(path.join(dataDir, 'files', 'u', ada.userId)).then(
        (f) => f.filter((n) => n.startsWith(s.bucketPath.split('/')[2]!)),
        () => [],
      ),
    ).toEqual([]);
    expect((await put(s.uploadUrl, PNG, 'image/png')).status).toBe(200);
  });

  it('refuses more than 10 MB: by Content-Length at once, and while streaming a body of unknown length', async () => {
    const s = await slot('image/png');
    const big = Buffer.concat([PNG, Buffer.alloc(10 * 1024 * 1024)]);
    expect(await put(s.uploadUrl, big, 'image/png')).toMatchObject({
      status: 400,
      json: { code: 'invalid', error: expect.stringMatching(/at most 10485760 \(10 MB\)/) },
    });
    let sent = 0;
    const streamed = await put(
      s.uploadUrl,
      async function* () {
        yield PNG;
        for (let i = 0; i < 40; i++) {
          sent += 1024 * 1024;
          yield Buffer.alloc(1024 * 1024);
        }
      },
      'image/png',
    );
    expect(streamed).toMatchObject({ status: 400, json: { code: 'invalid', error: expect.stringMatching(/larger than 10485760 bytes/) } });
    // The server stopped reading soon after the limit instead of taking all 40 MB.
    expect(sent).toBeLessThan(40 * 1024 * 1024);
    expect(await server.db('uploads').where({ bucket_path: s.bucketPath }).first()).toMatchObject({ uploaded_at: null });
  });

  it('refuses a bad or missing signature and an expired URL with 403', async () => {
    const s = await slot();
    const url = new URL(s.uploadUrl);
    const tampered = new URL(url);
    tampered.searchParams.set('sig', `${url.searchParams.get('sig')!.slice(0, -2)}AA`);
    expect(await put(tampered.toString(), PNG, 'image/png')).toMatchObject({
      status: 403,
      json: { code: 'unauthorized', error: expect.stringMatching(/signature of this URL does not match/) },
    });
    const longer = new URL(url);
    longer.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await put(longer.toString(), PNG, 'image/png')).status).toBe(403);
    expect(await put(`${server.baseUrl}/files/${s.bucketPath}`, PNG, 'image/png')).toMatchObject({
      status: 403,
      json: { error: expect.stringMatching(/not signed/) },
    });
    // Another slot's signature does not open this one.
    const other = new URL((await slot()).uploadUrl);
    expect((await put(`${server.baseUrl}/files/${s.bucketPath}?${other.searchParams.toString()}`, PNG, 'image/png')).status).toBe(403);
    const later = { ...server.services, now: () => new Date(Date.now() + 7201 * 1000) };
    const original = server.services.now;
    server.services.now = later.now;
    try {
      expect(await put(s.uploadUrl, PNG, 'image/png')).toMatchObject({
        status: 403,
        json: { code: 'unauthorized', error: expect.stringMatching(/expired at/) },
      });
    } finally {
      server.services.now = original;
    }
  });
});
