/** Images on an S3-compatible store (S3_BUCKET): s3rver, a fake S3 server, stands in for one. */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { useTestServer } from '../support/server.js';
import { PNG } from '../support/images.js';
import { create_image_upload } from '../../src/operations/create_image_upload.js';
import { create_items } from '../../src/operations/create_items.js';
import { get_item } from '../../src/operations/get_item.js';
import { loadConfig } from '../../src/core/config.js';
import { fileStore } from '../../src/files/open.js';

describe('the S3 file store', () => {
  let s3: S3rver;
  let endpoint: string;
  let dir: string;
  // Declared before useTestServer, so the S3 test server runs before the app is configured with its port.
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lk-s3-'));
    s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(dir, 's3'), configureBuckets: [{ name: 'lk-images' }] });
    endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
  });
  const { server, ada } = useTestServer({
    env: () => ({
      LISTKEEPER_DATA_DIR: path.join(dir, 'data'),
      S3_BUCKET: 'lk-images',
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_PREFIX: 'listkeeper/',
    }),
  });
  // After useTestServer's afterAll (jest runs them in the order declared): the server is closed first.
  afterAll(async () => {
    await s3.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the S3 settings, path-style when an endpoint is given', () => {
    expect(loadConfig({ S3_BUCKET: 'b', S3_ENDPOINT: 'http://minio:9000' }).s3).toEqual({
      bucket: 'b',
      endpoint: 'http://minio:9000',
      region: 'us-east-1',
      accessKeyId: null,
      secretAccessKey: null,
      prefix: '',
      forcePathStyle: true,
    });
    expect(loadConfig({ S3_BUCKET: 'b', S3_REGION: 'eu-west-1' }).s3).toMatchObject({ endpoint: null, region: 'eu-west-1', forcePathStyle: false });
    expect(loadConfig({}).s3).toBeNull();
  });

  it('stores an upload in the bucket, attaches it and serves it back through a signed URL', async () => {
    const [slot] = (await create_image_upload(server.context(ada), { mimeType: 'image/png' })).uploads;
    const put = await fetch(slot!.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: PNG });
    expect(put.status).toBe(200);
    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    const object = await client.send(new GetObjectCommand({ Bucket: 'lk-images', Key: `listkeeper/${slot!.bucketPath}` }));
    expect(Buffer.from(await object.Body!.transformToByteArray())).toEqual(PNG);
    client.destroy();
    expect(existsSync(path.join(dir, 'data', 'files'))).toBe(false);

    const made = await create_items(server.context(ada), { items: [{ title: 'From S3', imageUrls: [slot!.bucketPath] }] });
    expect(made.imagesAttached).toBe(1);
    const item = await get_item(server.context(ada), { id: made.items[0]!.id, includeImageUrls: true });
    const res = await fetch(item.attachments[0]!.url!);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(PNG);
  });

  it('removes an object, and a missing one without complaint', async () => {
    const store = fileStore(server.config);
    const bucketPath = `u/${ada.userId}/00000000-0000-4000-8000-00000000000a.png`;
    await store.write(
      bucketPath,
      (async function* () {
        yield PNG;
      })(),
    );
    const written = await store.read(bucketPath);
    written?.stream.destroy();
    expect(written).toMatchObject({ bytes: PNG.length });
    await store.remove(bucketPath);
    expect(await store.read(bucketPath)).toBeNull();
    await expect(store.remove(bucketPath)).resolves.toBeUndefined();
  });

  it('refuses a too-large upload without leaving an object', async () => {
    const [slot] = (await create_image_upload(server.context(ada), { mimeType: 'image/png' })).uploads;
    const body = Buffer.concat([PNG, Buffer.alloc(10 * 1024 * 1024)]);
    // The server answers 400 and closes at once; the client may see the answer or a reset.
    await fetch(slot!.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/png' }, body }).catch(() => null);
    expect(await server.db('uploads').where({ bucket_path: slot!.bucketPath }).first()).toMatchObject({ uploaded_at: null, bytes: null });
    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    await expect(client.send(new GetObjectCommand({ Bucket: 'lk-images', Key: `listkeeper/${slot!.bucketPath}` }))).rejects.toMatchObject({
      name: 'NoSuchKey',
    });
    client.destroy();
  });
});
