/**
 * Where uploaded and downloaded images are kept: a local folder, LISTKEEPER_DATA_DIR/files.
 * Files are written to a temporary name and renamed once complete, so a broken or refused
 * upload never leaves a half file under its bucket path.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.js';

/** Bucket paths the service hands out: `u/<owner id>/<file id>.<ext>`; nothing else is ever a path. */
const BUCKET_PATH = /^u\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(png|jpg|heic|webp)$/;

export function isBucketPath(value: string): boolean {
  return BUCKET_PATH.test(value);
}

export interface FileStore {
  /** Writes `source` under `bucketPath`; when `source` throws, nothing is kept. Returns the bytes written. */
  write(bucketPath: string, source: AsyncIterable<Buffer>): Promise<number>;
  /** The file's bytes as a stream and its size, or null when there is none. */
  read(bucketPath: string): Promise<{ stream: Readable; bytes: number } | null>;
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
}

/** The file store of this configuration. */
export function fileStore(config: Pick<Config, 'dataDir'>): FileStore {
  return new LocalFileStore(path.join(config.dataDir, 'files'));
}
