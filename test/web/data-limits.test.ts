/**
 * The import form's body against a signed-in person's browser session, on a service process
 * whose memory is read from /proc: a body over the API's body limit is refused before it is
 * read (by its length, or once it passes the limit when sent without one), a body within it is
 * refused at its first part unless that is this browser's CSRF token, and none of it makes
 * the server's peak memory grow. The audit sent 400 MiB without a token: the server read it
 * all and grew from 285 to 696 MB.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { once } from 'node:events';
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createUser } from '../../src/domain/accounts/accounts.js';
import { hashPassword } from '../../src/domain/accounts/passwords.js';
import { startServiceProcess, type ServiceProcess } from '../support/cluster.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { formValue, signInOverHttp, type HttpBrowser } from '../support/oauth.js';

const PASSWORD = 'correct horse battery staple';
const LIMIT = 1024 * 1024;
const MiB = 1024 * 1024;
const BOUNDARY = 'lkboundary7e3f';

/** One form field of a multipart body. */
const field = (name: string, value: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;

/**
 * A multipart body: `head` (what comes first), then `fields` fields of `fieldBytes` bytes each,
 * made as it is read, so the client holds none of it; `sent()` counts what the connection took.
 */
function body(head: string, fields: number, fieldBytes: number): { stream: Readable; sent(): number; length: number } {
  const filler = Buffer.alloc(64 * 1024, 'a');
  const partHead = (n: number) => Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="f${n}"\r\n\r\n`);
  const end = Buffer.from(`--${BOUNDARY}--\r\n`);
  let length = Buffer.byteLength(head) + end.length;
  for (let n = 0; n < fields; n++) length += partHead(n).length + fieldBytes + 2;
  function* chunks(): Generator<Buffer> {
    yield Buffer.from(head);
    for (let n = 0; n < fields; n++) {
      yield partHead(n);
      for (let left = fieldBytes; left > 0; left -= filler.length) yield filler.subarray(0, Math.min(left, filler.length));
      yield Buffer.from('\r\n');
    }
    yield end;
  }
  let sent = 0;
  function* counted(): Generator<Buffer> {
    for (const chunk of chunks()) {
      sent += chunk.length;
      yield chunk;
    }
  }
  return { stream: Readable.from(counted(), { objectMode: false }), sent: () => sent, length };
}

describe('the import form against large and forged bodies', () => {
  let database: TestDatabase;
  let dir: string;
  let service: ServiceProcess;
  let browser: HttpBrowser;
  let token: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    dir = await mkdtemp(path.join(os.tmpdir(), 'lk-import-limits-'));
    service = await startServiceProcess('uploads', {
      DATABASE_URL: database.url,
      LISTKEEPER_DATA_DIR: dir,
      EMBEDDINGS: 'none',
      BODY_LIMIT_BYTES: String(LIMIT),
    });
    const email = 'ada@example.com';
    await createUser(database.knex, { email, name: 'Ada', timezone: 'Europe/London', passwordHash: await hashPassword(PASSWORD) });
    browser = await signInOverHttp(service.url, email, PASSWORD, '/settings/data');
    token = formValue(await (await browser.request('/settings/data')).text(), 'csrf');
  }, 60_000);

  afterAll(async () => {
    await service?.stop('SIGTERM');
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The server's resident memory now and its peak since the last reset (kB), from /proc. */
  async function memory(): Promise<{ rss: number; peak: number }> {
    const status = await readFile(`/proc/${service.pid}/status`, 'utf8');
    const kB = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)![1]);
    return { rss: kB('VmRSS'), peak: kB('VmHWM') };
  }

  /** Starts the peak over at the present resident size. */
  const resetPeak = () => writeFile(`/proc/${service.pid}/clear_refs`, '5');

  /**
   * POSTs `payload` to the import form with this browser's cookies; resolves with the answer's
   * status and text once it came, whether or not the body was all sent (`hold` stops the body
   * after its first part until the answer came).
   */
  async function post(payload: ReturnType<typeof body>, options: { withLength: boolean }): Promise<{ status: number; text: string }> {
    const url = new URL('/settings/data/import', service.url);
    const req = http.request(url, {
      method: 'POST',
      headers: {
        cookie: browser.cookiesFor(url.pathname),
        origin: service.url,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        ...(options.withLength ? { 'content-length': String(payload.length) } : {}),
      },
    });
    req.on('error', () => undefined); // the server closes a connection it stopped reading
    payload.stream.pipe(req);
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    let text = '';
    for await (const chunk of res) text += chunk;
    payload.stream.unpipe(req);
    payload.stream.destroy();
    req.destroy();
    return { status: res.statusCode!, text };
  }

  it.each([
    ['without a token, with its Content-Length: refused by its length, unread', () => field('format', 'csv'), true, 413],
    ['without a token or a length: refused at its first part', () => field('format', 'csv'), false, 400],
    ["with this browser's token first but no length: refused once past the limit", () => field('csrf', token), false, 413],
  ])(
    'refuses 400 MiB in fields %s; the connection takes a sliver of it and the peak memory stays put',
    async (_case, head, withLength, status) => {
      await resetPeak();
      const before = await memory();
      // 400 fields just under the limit each (what the old reader kept, field by field): about 400 MiB.
      const payload = body(head(), 400, LIMIT - 1024);
      const answer = await post(payload, { withLength });
      expect(answer.status).toBe(status);
      expect(answer.text).toContain(status === 413 ? `send one file of at most ${LIMIT} bytes` : 'This form expired or was sent from another site');
      // What the connection took before the answer: socket buffers, not the body.
      expect(payload.sent()).toBeLessThan(32 * MiB);
      const after = await memory();
      const peakGrowthMiB = (after.peak - before.rss) / 1024;
      expect(peakGrowthMiB).toBeLessThan(48);
    },
    60_000,
  );

  it.each([
    ['no token', field('format', 'csv')],
    ['a token not this browser’s', field('csrf', 'forged')],
  ])(
    'refuses a body within the limit whose first part is %s, answering before the rest of it is sent',
    async (_case, head) => {
      const url = new URL('/settings/data/import', service.url);
      // The first part ends where the next one's boundary begins: that much is sent, the rest waits.
      const first = `${head}--${BOUNDARY}\r\n`;
      const rest = `Content-Disposition: form-data; name="file"; filename="x.csv"\r\nContent-Type: text/csv\r\n\r\nTitle\nx\n\r\n--${BOUNDARY}--\r\n`;
      const req = http.request(url, {
        method: 'POST',
        headers: {
          cookie: browser.cookiesFor(url.pathname),
          origin: service.url,
          'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
          'content-length': String(Buffer.byteLength(first) + Buffer.byteLength(rest)),
        },
      });
      req.write(first);
      const [res] = (await once(req, 'response')) as [http.IncomingMessage];
      let text = '';
      for await (const chunk of res) text += chunk;
      expect(res.statusCode).toBe(400);
      expect(text).toContain('This form expired or was sent from another site');
      req.end(rest);
      expect(await database.knex('imports').count({ n: '*' })).toEqual([{ n: '0' }]);
    },
    30_000,
  );

  it('takes the form whose first part is the token (the control)', async () => {
    const csv = 'Title\nDune\n';
    const text = `${field('csrf', token)}${field('format', 'csv')}--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="Books.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n--${BOUNDARY}--\r\n`;
    const url = new URL('/settings/data/preview', service.url);
    const res = await fetch(url, {
      method: 'POST',
      headers: { cookie: browser.cookiesFor(url.pathname), origin: service.url, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body: text,
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('1 items in one list');
  });
});
