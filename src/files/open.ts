/**
 * The file store of a configuration: an S3-compatible bucket when S3_BUCKET is set, else a
 * folder on this machine.
 */
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Config } from '../core/config.js';
import { isBucketPath, type FileStore } from './file-store.js';
import { DiskFileStore } from './disk.js';

export { isBucketPath, type FileStore };

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
    store = config.s3 ? new LazyS3FileStore(config.s3) : new DiskFileStore(path.join(config.dataDir, 'files'));
    stores.set(config, store);
  }
  return store;
}
