/**
 * Where uploaded and downloaded images are kept: a local folder, LISTKEEPER_DATA_DIR/files,
 * or an S3-compatible bucket when S3_BUCKET is set (./s3.ts). Local files are written to a
 * temporary name and renamed once complete, so a broken or refused upload never leaves a
 * half file under its bucket path.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../core/config.js';
import type { FileStore } from './file-store.js';

export type { FileStore };

/** Bucket paths the service hands out: `u/<owner id>/<file id>.<ext>`; nothing else is ever a path. */
const BUCKET_PATH =
  /^u\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(png|jpg|heic|webp)$/;

export function isBucketPath(value: string): boolean {
  return BUCKET_PATH.test(value);
}

class LocalFileStore implements FileStore {
  constructor(private readonly root: string) {}

  private file(bucketPath: string): string {
    if (!isBucketPath(bucketPath)) throw new Error(`not a bucket path: ${bucketPath}`);
    return path.join(this.root, bucketPath);
  }

  async write(bucketPath: string, source: AsyncIterable<Buffer>): Promise<number> {
    const target = this.file(bucketPath);
    await mkdir(path.dirname(target), { recursive: true });
    const temp = `${target}.part-${randomBytes(6).toString('hex')}`;
    let bytes = 0;
    const counted = async function* () {
      for await (const chunk of source) {
        bytes += chunk.length;
        yield chunk;
      }
    };
    try {
      await pipeline(Readable.from(counted()), createWriteStream(temp));
      await rename(temp, target);
      return bytes;
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async read(bucketPath: string): Promise<{ stream: Readable; bytes: number } | null> {
    const file = this.file(bucketPath);
    const info = await stat(file).catch(() => null);
    return info ? { stream: createReadStream(file), bytes: info.size } : null;
  }

  async remove(bucketPath: string): Promise<void> {
    await rm(this.file(bucketPath), { force: true });
  }
}

/** Opens the S3 store on first use, so the AWS SDK is loaded only where it is configured. */
class LazyS3FileStore implements FileStore {
  private store: Promise<FileStore> | null = null;
  constructor(private readonly s3: NonNullable<Config['s3']>) {}
  private open(): Promise<FileStore> {
    return (this.store ??= import('./s3.js').then(({ S3FileStore }) => new S3FileStore(this.s3)));
  }
  async write(bucketPath: string, source: AsyncIterable<Buffer>): Promise<number> {
    if (!isBucketPath(bucketPath)) throw new Error(`not a bucket path: ${bucketPath}`);
    return (await this.open()).write(bucketPath, source);
  }
  async read(bucketPath: string): Promise<{ stream: Readable; bytes: number } | null> {
    if (!isBucketPath(bucketPath)) throw new Error(`not a bucket path: ${bucketPath}`);
    return (await this.open()).read(bucketPath);
  }
  async remove(bucketPath: string): Promise<void> {
    if (!isBucketPath(bucketPath)) throw new Error(`not a bucket path: ${bucketPath}`);
    return (await this.open()).remove(bucketPath);
  }
}

const stores = new WeakMap<object, FileStore>();

/** The file store of this configuration (one per configuration object). */
export function fileStore(config: Pick<Config, 'dataDir' | 's3'>): FileStore {
  let store = stores.get(config);
  if (!store) {
    store = config.s3 ? new LazyS3FileStore(config.s3) : new LocalFileStore(path.join(config.dataDir, 'files'));
    stores.set(config, store);
  }
  return store;
}
