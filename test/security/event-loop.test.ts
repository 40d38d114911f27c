/**
 * The outside audit's requests that held the server, sent again with the event loop's delay
 * measured where they are served: the test server runs in this process, so perf_hooks'
 * monitorEventLoopDelay sees every block it makes (a control checks that it sees a block of
 * 150 ms). Each of these stayed under 100 ms of delay: repeating rules that never meet
 * (created, updated, completed as stored, 40 imported), a due date of 300,000 characters in a
 * CSV and a Todoist file, 60,000 and 20,001 columns, and 64 MiB to the web import form with
 * and without its CSRF token. A case is sent up to five times and its best attempt counts:
 * a busy 2-core machine can pause this process for its own reasons, a block of the server's
 * repeats on every attempt. Three were not always enough: with a CI run and a benchmark
 * beside it on the two cores (load average 9), the 300,000-character due date measured 387,
 * 148 and 192 ms, and the rules that never meet 444, 113 and then 72 ms.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { once } from 'node:events';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { useTestServer } from '../support/server.js';
import { startTestJobs } from '../support/jobs.js';
import { importEnded } from '../support/import-sample.js';
import { createUser } from '../../src/domain/accounts/accounts.js';
import { hashPassword } from '../../src/domain/accounts/passwords.js';
import { formValue, signInOverHttp, type HttpBrowser } from '../support/oauth.js';
import type { Jobs } from '../../src/jobs/queue.js';

const LIMIT_MS = 100;
const MiB = 1024 * 1024;
const BOUNDARY = 'lkboundary42';

/** The event loop's longest delay (ms) while `send` runs, sampled every 5 ms. */
async function worstDelay(send: () => Promise<void>): Promise<number> {
  const monitor = monitorEventLoopDelay({ resolution: 5 });
  monitor.enable();
  // The first sample only starts the count: a block before it would not show.
  while (monitor.count === 0) await nextTurn();
  await send();
  // A block shows when the monitor's next sample is taken: wait for one after the answer.
  const samples = monitor.count;
  while (monitor.count === samples) await nextTurn();
  monitor.disable();
  return monitor.max / 1e6;
}

/** The best of up to five attempts at `send`, with every attempt's delay for the message. */
async function bestDelay(send: () => Promise<void>): Promise<{ best: number; attempts: number[] }> {
  const attempts: number[] = [];
  while (attempts.length < 5) {
    attempts.push(await worstDelay(send));
    if (attempts.at(-1)! < LIMIT_MS) break;
  }
  return { best: Math.min(...attempts), attempts };
}

/** Rules whose parts never meet, each a different text. */
function neverRules(n: number): string[] {
  const shapes = [
    'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=31',
    'FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30',
    'FREQ=MINUTELY;BYMONTH=4;BYMONTHDAY=31',
    'FREQ=SECONDLY;BYMONTH=11;BYMONTHDAY=31',
    'FREQ=YEARLY;BYYEARDAY=366;BYMONTH=2',
    'FREQ=HOURLY;INTERVAL=24;BYHOUR=5;BYMINUTE=30',
    'FREQ=MONTHLY;BYDAY=MO;BYSETPOS=6',
    'FREQ=WEEKLY;BYMONTH=6;BYMONTHDAY=31',
  ];
  return Array.from({ length: n }, (_, i) => `${shapes[i % shapes.length]}${i >= shapes.length ? `;UNTIL=${2030 + i}0101T000000Z` : ''}`);
}

describe('the event loop under the audit’s hostile requests', () => {
  let jobs: Jobs;
  let browser: HttpBrowser;
  let csrf: string;
  const { server, ada } = useTestServer({
    beforeClose: async () => {
      await jobs.stop();
    },
  });

  beforeAll(async () => {
    jobs = await startTestJobs(server);
    const email = 'eve-web@example.com';
    await createUser(server.db, { email, name: 'Eve', timezone: 'Europe/London', passwordHash: await hashPassword('correct horse battery staple') });
    browser = await signInOverHttp(server.baseUrl, email, 'correct horse battery staple', '/settings/data');
    csrf = formValue(await (await browser.request('/settings/data')).text(), 'csrf');
  }, 60_000);

  const expectUnder = ({ best, attempts }: { best: number; attempts: number[] }) =>
    expect({ best: best < LIMIT_MS, attempts }).toEqual({ best: true, attempts });

  it('sees a block (the control)', async () => {
    const delay = await worstDelay(async () => {
      const end = performance.now() + 150;
      while (performance.now() < end);
    });
    expect(delay).toBeGreaterThanOrEqual(140);
  });

  it('creates, updates and completes with rules that never meet', async () => {
    const task = (await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Stored rule', dueAt: '2026-11-20T09:00:00Z' }] } })).data!
      .items[0]!;
    // A rule stored before rules were checked: completing it must not search for long.
    await server.db('items').where({ id: task.id }).update({ recurrence: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=31' });
    expectUnder(
      await bestDelay(async () => {
        const made = await ada.sdk.POST('/items', { body: { listId: 'tasks', items: neverRules(16).map((recurrence) => ({ title: 'never', recurrence })) } });
        expect(made.data!.failed).toHaveLength(16);
        const updated = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: task.id, recurrence: 'FREQ=HOURLY;BYYEARDAY=366;BYMONTH=2' }] } });
        expect(updated.response.status).toBe(409);
      }),
    );
    expectUnder(
      await bestDelay(async () => {
        const done = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: task.id }], taskStatus: 'completed' } });
        expect(done.response.status).toBe(200);
        await server.db('items').where({ id: task.id }).update({ task_status: 'todo', completed_at: null });
      }),
    );
  });

  it('imports an export document whose tasks repeat by rules that never meet', async () => {
    const document = (await ada.sdk.GET('/export', {})).data!;
    const tasks = document.lists.find((l) => l.items.some((i) => i.title === 'Stored rule'))!;
    const model = tasks.items.find((i) => i.title === 'Stored rule')!;
    tasks.items = neverRules(40).map((rule, n) => ({ ...model, id: `never-${n}`, title: `Never ${n}`, recurrence: rule }));
    expectUnder(
      await bestDelay(async () => {
        const res = await ada.sdk.POST('/imports', { body: { format: 'listkeeper', document } });
        expect(res.error).toBeUndefined();
        const started = res.data!;
        const ended = await importEnded(ada, started.id);
        expect(ended.status).not.toBe('failed');
      }),
    );
  });

  it('previews a due date of 300,000 characters, in a CSV and in a Todoist file', async () => {
    const long = `tomorrow ${'at noon '.repeat(37_500)}`;
    expectUnder(
      await bestDelay(async () => {
        const csv = await ada.sdk.POST('/imports/preview', { body: { format: 'csv', csv: `Title,Due\nLong,"${long}"\n`, listName: 'Long' } });
        expect(csv.response.status).toBe(200);
        const todoist = await ada.sdk.POST('/imports/preview', {
          body: { format: 'todoist', csv: `TYPE,CONTENT,DATE\ntask,Long,"${long}"\n`, listName: 'Long' },
        });
        expect(todoist.response.status).toBe(200);
      }),
    );
  });

  it('refuses 60,000 columns in a preview and 20,001 in an import', async () => {
    const columns = (n: number) => `${Array.from({ length: n }, (_, i) => `c${i}`).join(',')}\n${'v,'.repeat(n - 1)}v\n`;
    expectUnder(
      await bestDelay(async () => {
        const preview = await ada.sdk.POST('/imports/preview', { body: { format: 'csv', csv: columns(60_000), listName: 'Wide' } });
        expect(preview.response.status).toBe(409);
        const created = await ada.sdk.POST('/imports', { body: { format: 'csv', csv: columns(20_001), listName: 'Wide' } });
        expect(created.response.status).toBe(409);
      }),
    );
  });

  /** POSTs a 64 MiB multipart body to the web import form, its first part `head`. */
  async function postForm(head: string, withLength: boolean): Promise<number> {
    const url = new URL('/settings/data/import', server.baseUrl);
    const filler = Buffer.alloc(MiB, 'a');
    const start = Buffer.from(`${head}--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\n`);
    const end = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
    const stream = Readable.from(
      (function* () {
        yield start;
        for (let i = 0; i < 64; i++) yield filler;
        yield end;
      })(),
      { objectMode: false },
    );
    const req = http.request(url, {
      method: 'POST',
      headers: {
        cookie: browser.cookiesFor(url.pathname),
        origin: server.baseUrl,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        ...(withLength ? { 'content-length': String(start.length + 64 * MiB + end.length) } : {}),
      },
    });
    req.on('error', () => undefined); // the server closes a connection it stopped reading
    stream.pipe(req);
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    for await (const _ of res);
    stream.unpipe(req);
    stream.destroy();
    req.destroy();
    return res.statusCode!;
  }

  it.each([
    ['with its CSRF token, without a length', true, false, 413],
    ['with its CSRF token and its length', true, true, 413],
    ['without a token', false, false, 400],
  ])('refuses 64 MiB to the web import form %s', async (_case, withToken, withLength, status) => {
    const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${withToken ? 'csrf' : 'format'}"\r\n\r\n${withToken ? csrf : 'csv'}\r\n`;
    expectUnder(
      await bestDelay(async () => {
        expect(await postForm(head, withLength)).toBe(status);
      }),
    );
  });
});
