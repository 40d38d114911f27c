/** The SDK's transport: which requests are sent again, after how long, and with which token. */
import { describe, it, expect } from '@jest/globals';
import { createTransport } from '../../sdk/src/transport.js';

const base = 'http://lk.test/api/v1';

/** A fetch that answers from a script and records what it was sent. */
function scripted(answers: (Response | Error)[]) {
  const sent: { method: string; url: string; auth: string | null; body: string }[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    sent.push({ method: request.method, url: request.url, auth: request.headers.get('authorization'), body: await request.text() });
    const next = answers.shift();
    if (!next) throw new Error('no scripted answer left');
    if (next instanceof Error) throw next;
    return next;
  };
  return { fetch: fetch as typeof globalThis.fetch, sent };
}
const status = (code: number, headers: Record<string, string> = {}) => new Response('{}', { status: code, headers });
const post = (path: string, body: unknown) =>
  new Request(`${base}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

describe('SDK transport', () => {
  it.each([
    ['a read after 503', new Request(`${base}/lists`), [status(503, { 'retry-after': '0' }), status(200)], 2],
    ['a write after 429 (refused before anything was done)', post('/lists', { name: 'x' }), [status(429, { 'retry-after': '0' }), status(201)], 2],
    [
      'an idempotent write (PATCH /lists/{id}) after a network failure',
      new Request(`${base}/lists/abc`, { method: 'PATCH', body: '{}' }),
      [new TypeError('fetch failed'), status(200)],
      2,
    ],
    [
      'create_items whose every entry has an externalId, after a network failure',
      post('/items', {
        items: [
          { title: 'a', externalId: 'a' },
          { title: 'b', externalId: 'b' },
        ],
      }),
      [new TypeError('fetch failed'), status(201)],
      2,
    ],
  ])('sends again: %s', async (_name, request, answers, calls) => {
    const { fetch, sent } = scripted([...answers]);
    const response = await createTransport({ token: 'lk_x', fetch })(request);
    expect(response.ok).toBe(true);
    expect(sent).toHaveLength(calls);
    expect(sent[1]!.body).toBe(sent[0]!.body);
  });

  it.each([
    ['create_list after a 503 (it may have been made)', post('/lists', { name: 'x' }), [status(503, { 'retry-after': '0' })], 503],
    [
      'create_items with an entry without externalId, after a 503',
      post('/items', { items: [{ title: 'a', externalId: 'a' }, { title: 'b' }] }),
      [status(503, { 'retry-after': '0' })],
      503,
    ],
    ['a read answered 404', new Request(`${base}/items/abc`), [status(404)], 404],
    ['a write answered 409', post('/items/move', { itemIds: [], listId: 'x' }), [status(409)], 409],
  ])('does not send again: %s', async (_name, request, answers, expected) => {
    const { fetch, sent } = scripted([...answers]);
    const response = await createTransport({ token: 'lk_x', fetch })(request);
    expect(response.status).toBe(expected);
    expect(sent).toHaveLength(1);
  });

  it('gives up after maxRetries and returns the last answer', async () => {
    const { fetch, sent } = scripted([status(429, { 'retry-after': '0' }), status(429, { 'retry-after': '0' }), status(429, { 'retry-after': '0' })]);
    const response = await createTransport({ token: 'lk_x', fetch, maxRetries: 2 })(new Request(`${base}/lists`));
    expect(response.status).toBe(429);
    expect(sent).toHaveLength(3);
  });

  it('waits as long as Retry-After says', async () => {
    const { fetch } = scripted([status(429, { 'retry-after': '1' }), status(200)]);
    const started = Date.now();
    await createTransport({ token: 'lk_x', fetch })(new Request(`${base}/lists`));
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('asks a token function before every attempt, so a refreshed token is used', async () => {
    const { fetch, sent } = scripted([status(429, { 'retry-after': '0' }), status(200)]);
    let n = 0;
    await createTransport({ token: async () => `token-${++n}`, fetch })(new Request(`${base}/lists`));
    expect(sent.map((s) => s.auth)).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it('aborts an attempt at the timeout', async () => {
    const hanging = ((request: Request) =>
      new Promise<Response>((_resolve, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason)))) as typeof globalThis.fetch;
    await expect(createTransport({ token: 'lk_x', fetch: hanging, timeout: 50, maxRetries: 0 })(new Request(`${base}/lists`))).rejects.toMatchObject({
      name: 'TimeoutError',
    });
  });
});
