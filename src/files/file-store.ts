/** Where the service keeps uploaded and downloaded files: a folder on this machine (./disk.ts) or S3 (./s3.ts); ./open.ts picks one. */
import type { Readable } from 'node:stream';

export interface FileStore {
  /** Writes `source` under `bucketPath`; when `source` throws, nothing is kept. Returns the bytes written. */
  write(bucketPath: string, source: AsyncIterable<Buffer>): Promise<number>;
  /** The file's bytes as a stream and its size, or null when there is none. */
  read(bucketPath: string): Promise<{ stream: Readable; bytes: number } | null>;
  /** Deletes the file; nothing happens when there is none. */
  remove(bucketPath: string): Promise<void>;
}

/** Bucket paths the service hands out: `u/<owner id>/<file id>.<ext>`; nothing else is ever a path. */
const BUCKET_PATH =
  /^u\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(png|jpg|heic|webp)$/;

export function isBucketPath(value: string): boolean {
  return BUCKET_PATH.test(value);
}
