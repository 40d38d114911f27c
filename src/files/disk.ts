/**
 * Files kept in a folder on this machine, LISTKEEPER_DATA_DIR/files. A file is written to a
 * temporary name and renamed once complete, so a broken or refused upload never leaves a half
 * file under its bucket path.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isBucketPath, type FileStore } from './file-store.js';

export class DiskFileStore implements FileStore {
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
