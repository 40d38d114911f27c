import { createWriteStream, type WriteStream } from 'node:fs';
import path from 'node:path';

const LOG_TAIL_LINES = 30;

/** Collects Postgres' stderr into dataDir/postgres.log and keeps the last lines for error messages. */
export interface PostgresLog {
  file: string;
  write(chunk: string): void;
  tail(): string;
  close(): Promise<void>;
}

/** Appends to dataDir/postgres.log so Postgres' chatter stays off stdout but is there when something fails. */
export async function openPostgresLog(dataDir: string): Promise<PostgresLog> {
  const file = path.join(dataDir, 'postgres.log');
  const stream: WriteStream = createWriteStream(file, { flags: 'a' });
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  const recent: string[] = [];
  let closed: Promise<void> | undefined;
  return {
    file,
    write(chunk: string): void {
      if (!stream.writable) return;
      stream.write(chunk);
      recent.push(...chunk.split('\n').filter((line) => line.trim() !== ''));
      recent.splice(0, Math.max(0, recent.length - LOG_TAIL_LINES));
    },
    tail(): string {
      return recent.join('\n');
    },
    close(): Promise<void> {
      return (closed ??= new Promise((resolve) => stream.end(() => resolve())));
    },
  };
}
