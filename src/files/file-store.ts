/** Where the service keeps uploaded and downloaded files: a local folder (./store.ts) or S3 (./s3.ts). */
import type { Readable } from 'node:stream';

export interface FileStore {
  /** Writes `source` under `bucketPath`; when `source` throws, nothing is kept. Returns the bytes written. */
  write(bucketPath: string, source: AsyncIterable<Buffer>): Promise<number>;
  /** The file's bytes as a stream and its size, or null when there is none. */
  read(bucketPath: string): Promise<{ stream: Readable; bytes: number } | null>;
  /** Deletes the file; nothing happens when there is none. */
  remove(bucketPath: string): Promise<void>;
}
