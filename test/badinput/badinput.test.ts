/**
 * Bad input. Every refused call answers 4xx with `{error, code}` (a code of the spec's table)
 * and leaves the account's rows exactly as they were; text that is merely unusual — right-to-
 * left marks, emoji, SQL, Markdown and HTML — is stored and returned verbatim and never runs.
 * The limits are read from the generated operation table, so a limit added to openapi.yaml is
 * tested without a new line here.
 */
import { describe, it, expect } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { snapshotOf } from '../support/snapshot.js';
import { useBadInput, type Sent } from './bad-input-fixture.js';

describe('bad input', () => {
  const { server, ada, mcp, ids, send, refused } = useBadInput();

  describe('malformed requests', () => {
    it.each([
      ['malformed JSON', '{"name": "Books",', 'application/json', /not valid JSON/],
      ['JSON that stops mid-string', '{"name": "Bo', 'application/json', /not valid JSON/],
      ['a JSON array instead of an object', '[{"name": "Books"}]', 'application/json', /'body' must be object/],
      ['a JSON string', '"Books"', 'application/json', /'body' must be object/],
      ['a JSON number', '42', 'application/json', /'body' must be object/],
      ['JSON sent as text/plain', '{"name": "Books"}', 'text/plain', /Content-Type 'text\/plain' is not accepted/],
      ['a form body', 'name=Books', 'application/x-www-form-urlencoded', /is not accepted/],
      ['XML', '<list><name>Books</name></list>', 'application/xml', /is not accepted/],
    ])('refuses %s with 400 invalid', async (_case, body, contentType, message) => {
      await refused({ method: 'POST', path: '/lists', body, contentType }, { status: 400, code: 'invalid', message });
    });

    it('refuses an empty body where one is required', async () => {
      await refused({ method: 'POST', path: '/lists', body: '' }, { status: 400, code: 'invalid', message: /needs a JSON body/ });
      await refused({ method: 'POST', path: '/lists', body: 'null' }, { status: 400, code: 'invalid', message: /needs a JSON body/ });
    });

    it('refuses a JSON null where the body is optional, and any body where there is none', async () => {
      await refused(
        { method: 'DELETE', path: `/lists/${ids.list}`, body: 'null' },
        { status: 400, code: 'invalid', message: /'body' must be object; received null/ },
      );
      await refused({ method: 'DELETE', path: `/lists/${ids.list}`, body: '[]' }, { status: 400, code: 'invalid', message: /'body' must be object/ });
      for (const body of ['null', '42', '"run"', '[1]']) {
        await refused(
          { method: 'POST', path: `/automations/${randomUUID()}/run`, body },
          { status: 400, code: 'invalid', message: /run_automation takes no body; received/ },
        );
      }
      await refused({ method: 'POST', path: `/automations/${randomUUID()}/run`, body: '{"force": true}' }, { status: 400, code: 'invalid', field: 'force' });
    });

    it('refuses a body over the limit (BODY_LIMIT_BYTES) before reading it whole', async () => {
      const big = JSON.stringify({ items: [{ title: 'x', body: 'y'.repeat(server.config.bodyLimitBytes) }] });
      await refused({ method: 'POST', path: '/items', body: big }, { status: 400, code: 'invalid', message: /the limit is \d+ bytes/ });
    });

    it('refuses a head over 64 KiB with 400 invalid', async () => {
      const answer = await refused(
        { method: 'GET', path: `/items?ids=${Array.from({ length: 2000 }, () => randomUUID()).join(',')}` },
        { status: 400, code: 'invalid' },
      );
      expect(answer.json!.error).toMatch(/exceed 65536 bytes/);
    });

    it('refuses unknown fields naming them and what is valid', async () => {
      await refused(
        { method: 'POST', path: '/lists', body: JSON.stringify({ name: 'Books', colour: 'red' }) },
        { status: 400, code: 'invalid', field: 'colour', message: /'colour' is not a known field; valid: name, icon/ },
      );
      await refused({ method: 'GET', path: '/lists?colour=red' }, { status: 400, code: 'invalid', field: 'colour' });
    });

    it('refuses a wrong JSON type anywhere in the body, naming where', async () => {
      await refused(
        { method: 'POST', path: '/items', body: JSON.stringify({ items: [{ title: 'fine' }, { title: 7 }] }) },
        { status: 400, code: 'invalid', field: 'items[1].title' },
      );
      await refused(
        { method: 'PATCH', path: '/items', body: JSON.stringify({ items: [{ itemId: ids.item }], archived: 'yes' }) },
        { status: 400, code: 'invalid', field: 'archived' },
      );
    });
  });

  describe('invalid ids', () => {
    it.each([
      ['GET /items/{id}', { method: 'GET', path: '/items/not-a-uuid' }, 'id'],
      ['GET /items/{id} with SQL', { method: 'GET', path: `/items/${encodeURIComponent("1' OR '1'='1")}` }, 'id'],
      ['PATCH /items itemId', { method: 'PATCH', path: '/items', body: JSON.stringify({ items: [{ itemId: 'x', title: 'y' }] }) }, 'items[0].itemId'],
      ['POST /trash/restore id', { method: 'POST', path: '/trash/restore', body: JSON.stringify({ type: 'item', id: '12345' }) }, 'id'],
      ['GET /items ids', { method: 'GET', path: '/items?ids=abc' }, 'ids[0]'],
      // An empty value is an empty id, not no ids (Schemathesis: `ids=` was answered 200).
      ['GET /items ids empty', { method: 'GET', path: '/items?ids=' }, 'ids[0]'],
    ])('%s: 400 naming the field', async (_case, req, field) => {
      await refused(req as Sent, { status: 400, code: 'invalid', field });
    });

    it.each([
      ['a malformed list id', 'not-a-uuid'],
      ['an unknown list word', 'inbox'],
      ['a well-formed id of no list', randomUUID()],
    ])('answers 404 for %s as a listId', async (_case, listId) => {
      await refused({ method: 'GET', path: `/items?listId=${encodeURIComponent(listId)}` }, { status: 404, code: 'notFound' });
      await refused({ method: 'POST', path: '/items', body: JSON.stringify({ listId, items: [{ title: 'x' }] }) }, { status: 404, code: 'notFound' });
      await refused({ method: 'POST', path: '/items/query', body: JSON.stringify({ listId }) }, { status: 404, code: 'notFound' });
    });

    it('lists malformed ids under refused in DELETE /items and deletes nothing', async () => {
      const before = await snapshotOf(server, ada.userId);
      const answer = await send({ method: 'DELETE', path: '/items', body: JSON.stringify({ itemIds: ['not-a-uuid', "'; DELETE FROM items; --"] }) });
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ deleted: 0, refused: ['not-a-uuid', "'; DELETE FROM items; --"] });
      expect(await snapshotOf(server, ada.userId)).toEqual(before);
    });
  });

  describe('invalid dates', () => {
    it.each([
      ['a 30th of February', '2026-02-30T10:00:00Z'],
      ['a 13th month', '2026-13-01T00:00:00Z'],
      ['hour 24', '2026-01-01T24:00:00Z'],
      ['words', 'yesterday'],
      ['a bare number', '1735689600'],
      ['an offset of 24 hours', '2026-01-01T10:00:00+24:00'],
    ])('refuses %s as a time filter with 400 naming it', async (_case, value) => {
      await refused({ method: 'GET', path: `/items?dueAfter=${encodeURIComponent(value)}` }, { status: 400, code: 'invalid', field: 'dueAfter' });
      await refused(
        { method: 'POST', path: '/items/query', body: JSON.stringify({ listId: 'tasks', createdBefore: value }) },
        { status: 400, code: 'invalid', field: 'createdBefore' },
      );
      // A due date to set may be written in words ("yesterday" is read), so any text passes its
      // schema: a broken ISO date is refused on its merits (409), never guessed at.
      if (_case !== 'words')
        await refused(
          { method: 'PATCH', path: '/items', body: JSON.stringify({ items: [{ itemId: ids.item }], dueAt: value }) },
          { status: 409, code: 'toolError', field: 'dueAt' },
        );
      await refused({ method: 'GET', path: `/items?changedSince=${encodeURIComponent(value)}` }, { status: 400, code: 'invalid', field: 'changedSince' });
    });

    it("reads every instant the format admits, offsets past Postgres' ±15:59 and leap seconds included", async () => {
      for (const value of [
        '2026-01-01T10:00:00+23:59',
        '2026-01-01t10:00:00z',
        '2016-12-31T23:59:60Z',
        '0000-01-01T00:00:00+23:59',
        '9999-12-31T23:59:59-23:59',
      ]) {
        const answer = await send({ method: 'GET', path: `/items?createdAfter=${encodeURIComponent(value)}&changedSince=${encodeURIComponent(value)}` });
        expect({ value, status: answer.status }).toEqual({ value, status: 200 });
      }
    });

    it('reports an unreadable dueAt of one entry under failed and still creates the rest', async () => {
      const answer = await send({
        method: 'POST',
        path: '/items',
        body: JSON.stringify({
          items: [
            { title: 'bad date', dueAt: '2026-02-30' },
            { title: 'good date', dueAt: '2026-03-01' },
          ],
        }),
      });
      expect(answer.status).toBe(201);
      expect(answer.json).toMatchObject({ added: 1, failed: [{ index: 0, reason: expect.stringMatching(/dueAt/) }] });
      expect((answer.json!.items as { title: string }[]).map((i) => i.title)).toEqual(['good date']);
    });
  });

  describe('unicode', () => {
    it.each([
      ['a NUL character in a list name', 'POST', '/lists', { name: 'Bo\u0000oks' }, 'name', /NUL character \(U\+0000\)/],
      ['a NUL character in an item body', 'POST', '/items', { items: [{ title: 'ok', body: 'a\u0000b' }] }, 'items[0].body', /NUL/],
      [
        'a NUL character in a value key',
        'POST',
        '/items',
        { listId: 'LIST', items: [{ title: 'ok', values: { 'Aut\u0000hor': 'x' } }] },
        'items[0].values.Aut\u0000hor',
        /NUL/,
      ],
      [
        'a lone high surrogate in a title',
        'PATCH',
        '/items',
        { items: [{ itemId: 'ITEM', title: 'broken \ud83d' }] },
        'items[0].title',
        /unpaired UTF-16 surrogate \(U\+D83D\)/,
      ],
      [
        'a lone low surrogate in a query',
        'POST',
        '/items/query',
        { listId: 'tasks', where: [{ property: 'title', op: 'contains', value: '\ude00' }] },
        'where[0].value',
        /unpaired/,
      ],
    ])('refuses %s with 400 naming the field', async (_case, method, path, body, field, message) => {
      const text = JSON.stringify(body).replace('LIST', ids.list).replace('ITEM', ids.item);
      await refused({ method, path, body: text }, { status: 400, code: 'invalid', field, message });
    });

    it('refuses a NUL character in a query parameter', async () => {
      await refused({ method: 'GET', path: '/items?query=a%00b' }, { status: 400, code: 'invalid', field: 'query' });
    });

    it('refuses a NUL character over MCP too, as an isError result', async () => {
      const before = await snapshotOf(server, ada.userId);
      const result = await mcp.callTool({ name: 'create_list', arguments: { name: 'x\u0000y' } });
      expect(result.isError).toBe(true);
      expect((result.content as { text: string }[])[0]!.text).toMatch(/'name' contains a NUL character.*\(code: invalid\)/);
      expect(await snapshotOf(server, ada.userId)).toEqual(before);
    });

    const texts = [
      ['right-to-left marks and an override', 'Invoice \u200Fשלום\u200E \u202Egnp.exe\u202C'],
      ['emoji, with skin tones and zero-width joiners', '📚 Books 👩🏽‍💻 👨‍👩‍👧‍👦 🏳️‍🌈'],
      ['combining marks and a byte-order mark', 'Cafe\u0301 \uFEFFZ\u0335\u0321a\u0336lgo'],
      ['astral plane and private use characters', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 \uE000 \u{10FFFD}'],
      ['control characters other than NUL', 'tab\tnewline\nbell\u0007escape\u001b[31m'],
    ];
    it.each(texts)('stores %s verbatim in names, titles, bodies and values, REST and MCP', async (_case, text) => {
      const list = await send({
        method: 'POST',
        path: '/lists',
        body: JSON.stringify({ name: text, titleLabel: text, properties: [{ name: `P ${text}`, type: 'select', options: [text] }] }),
      });
      expect(list.status).toBe(201);
      expect(list.json).toMatchObject({ name: text, titleLabel: text, properties: [{ name: `P ${text}`, options: [{ label: text }] }] });
      const created = await send({
        method: 'POST',
        path: '/items',
        body: JSON.stringify({ listId: list.json!.id, items: [{ title: text, body: text, values: { [`P ${text}`]: text } }] }),
      });
      expect(created.status).toBe(201);
      const id = (created.json!.items as { id: string }[])[0]!.id;
      const read = await send({ method: 'GET', path: `/items/${id}` });
      expect(read.json).toMatchObject({ title: text, body: text, cells: { [`P ${text}`]: text }, listName: text });
      const viaMcp = await mcp.callTool({ name: 'get_item', arguments: { id } });
      expect(viaMcp.structuredContent).toMatchObject({ title: text, body: text });
    });
  });
});
