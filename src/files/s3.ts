/**
 * The file store on an S3-compatible object store (AWS S3, MinIO, R2, ...), used when
 * S3_BUCKET is set. Images are at most 10 MB, so a file is gathered while its checks run
 * and put in one request once complete: a refused or broken upload never leaves an object.
 * Loaded only when configured, so the default (local folder) never loads the AWS SDK.
 */
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import type { Config } from '../core/config.js';
import type { FileStore } from './file-store.js';

export class S3FileStore implements FileStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(s3: NonNullable<Config['s3']>) {
    this.bucket = s3.bucket;
    this.prefix = s3.prefix;
    this.client = new S3Client({
      region: s3.region,
      ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
      forcePathStyle: s3.forcePathStyle,
      ...(s3.accessKeyId && s3.secretAccessKey ? { credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } } : {}),
      // Checksums only where S3 requires them: several S3-compatible stores reject the newer defaults.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async write(bucketPath: string, source: AsyncIterable<Buffer>): Promise<number> {
    const chunks: Buffer[] = [];
    for await (const chunk of source) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.prefix + bucketPath, Body: body, ContentLength: body.length }));
    return body.length;
  }

  async read(bucketPath: string): Promise<{ stream: Readable; bytes: number } | null> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + bucketPath }));
      return { stream: object.Body as Readable, bytes: object.ContentLength ?? 0 };
    } catch (err) {
      if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return null;
      throw err;
    }
  }

  async remove(bucketPath: string): Promise<void> {
    // S3 answers a delete of a missing key with success too.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.prefix + bucketPath }));
  }
}
