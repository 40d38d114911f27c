/** The enrich pass: due date from the title in the person's time zone, title cleanup, list suggestion. */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { pino } from 'pino';
import { useTestServer } from '../../support/server.js';
import { create_items } from '../../../src/operations/create_items.js';
import { create_list } from '../../../src/operations/create_list.js';
import { get_item } from '../../../src/operations/get_item.js';
import { update_items } from '../../../src/operations/update_items.js';
import { startOutboxPump } from '../../../src/jobs/outbox.js';
import { ENRICH_TOPIC, readDueFromTitle } from '../../../src/domain/items/enrich.js';
import { enrichConsumer } from '../../../src/jobs/enrich.js';

const log = pino({ level: 'silent' });
// Tuesday 2026-03-10 08:00 in New York (EDT since 2026-03-08).
const NOW = new Date('2026-03-10T12:00:00Z');

describe('enrich', () => {
  const { server, ada } = useTestServer();
  beforeAll(async () => {
    await server.db('users').where({ id: ada.userId }).update({ timezone: 'America/New_York' });
  });
  const ctx = () => ({ ...server.context(ada), services: { ...server.services, now: () => NOW } });
  /** Delivers the outbox as the server's pump does, with the fixed clock. */
  async function drain(): Promise<void> {
    const pump = startOutboxPump(server.db, { [ENRICH_TOPIC]: enrichConsumer(server.db, () => NOW, log) }, log, 60000);
    await pump.drain();
    await pump.stop();
  }
  const row = (id: string) => server.db('items').where({ id }).first();

  it("reads the due date from the title in the person's time zone and cleans the title", async () => {
    const made = await create_items(ctx(), { enrich: true, items: [{ title: 'call mom tomorrow at 5pm' }, { title: 'Dentist on Friday' }] });
    // Nothing happens inside the write: the pass runs after it.
    expect(made.items.map((i) => [i.title, i.dueAt])).toEqual([
      ['call mom tomorrow at 5pm', null],
      ['Dentist on Friday', null],
    ]);
    await drain();
    const call = await row(made.items[0]!.id);
    expect(call).toMatchObject({ title: 'call mom', has_due_time: true });
    expect(call.due_at.toISOString()).toBe('2026-03-11T21:00:00.000Z'); // 17:00 EDT
    const dentist = await row(made.items[1]!.id);
    expect(dentist).toMatchObject({ title: 'Dentist', has_due_time: false });
    expect(dentist.due_at.toISOString()).toBe('2026-03-13T04:00:00.000Z'); // Friday, start of the local day
    const item = await get_item(ctx(), { id: made.items[0]!.id });
    expect(item.guidance).toContain("Enrich read 'tomorrow at 5pm' in the title as due 2026-03-11 17:00 (America/New_York) and took it out of the title.");
  });

  it('keeps what the caller set: a due date sent stays, and so does the title', async () => {
    const made = await create_items(ctx(), { items: [{ title: 'Pay rent tomorrow', dueAt: '2026-03-20', taskStatus: 'inProgress', enrich: true }] });
    await drain();
    const pay = await row(made.items[0]!.id);
    expect(pay).toMatchObject({ title: 'Pay rent tomorrow', task_status: 'inProgress' });
    expect(pay.due_at.toISOString()).toBe('2026-03-20T04:00:00.000Z');
    expect(pay.guidance_note).toBe("Enrich saw 'tomorrow' in the title but kept the due date that was set.");
  });

  it('runs no pass without enrich, nor on a list that keeps no tasks', async () => {
    const plain = await create_items(ctx(), { items: [{ title: 'Water plants tomorrow' }] });
    const note = await create_items(ctx(), { listId: 'notes', enrich: true, items: [{ title: 'Idea for tomorrow' }] });
    expect(await server.db('outbox').where({ topic: ENRICH_TOPIC }).whereIn('subject_id', [plain.items[0]!.id, note.items[0]!.id])).toEqual([]);
    await drain();
    expect(await row(plain.items[0]!.id)).toMatchObject({ title: 'Water plants tomorrow', due_at: null, guidance_note: null });
    expect(await row(note.items[0]!.id)).toMatchObject({ title: 'Idea for tomorrow', guidance_note: null });
  });

  it('suggests a list whose name or standing rules share words with the title, and says why', async () => {
    const groceries = await create_list(server.context(ada), { name: 'Groceries', template: 'tasks', instructions: 'Milk, eggs, bread: food to buy' });
    const made = await create_items(ctx(), { enrich: true, items: [{ title: 'Get milk and eggs' }, { title: 'Renew passport' }] });
    await drain();
    expect((await row(made.items[0]!.id)).guidance_note).toBe(
      `Enrich found no date in the title. It may belong on 'Groceries' (${groceries.id}) rather than 'Tasks': 'milk', 'eggs' match its standing rules. Move it with move_items if so.`,
    );
    expect((await row(made.items[1]!.id)).guidance_note).toBe('Enrich found no date in the title.');
  });

  it('leaves an item edited before the pass ran alone', async () => {
    const made = await create_items(ctx(), { enrich: true, items: [{ title: 'Book flights next monday' }] });
    const later = { ...server.context(ada), services: { ...server.services, now: () => new Date(NOW.getTime() + 60000) } };
    await update_items(later, { items: [{ itemId: made.items[0]!.id, title: 'Book flights (done by phone)' }] });
    await drain();
    expect(await row(made.items[0]!.id)).toMatchObject({ title: 'Book flights (done by phone)', due_at: null, guidance_note: null });
  });

  it('is asked for the same way over REST and MCP', async () => {
    const rest = await ada.sdk.POST('/items', { body: { enrich: true, items: [{ title: 'Submit report by Thursday 10am' }] } });
    const mcp = await (await server.mcp(ada)).callTool({ name: 'create_items', arguments: { items: [{ title: 'Call the bank tomorrow', enrich: true }] } });
    const ids = [rest.data!.items[0]!.id, (mcp.structuredContent as { items: { id: string }[] }).items[0]!.id];
    await drain();
    const [report, bank] = await Promise.all(ids.map(row));
    expect(report).toMatchObject({ title: 'Submit report', has_due_time: true });
    expect(bank).toMatchObject({ title: 'Call the bank', has_due_time: false });
    const read = await (await server.mcp(ada)).callTool({ name: 'get_item', arguments: { id: ids[0] } });
    expect((read.structuredContent as { guidance: string }).guidance).toMatch(/Enrich read 'Thursday 10am'/);
  });

  it.each([
    // Across the switch to summer time: read on Saturday in EST, due on Sunday in EDT.
    ['Brunch tomorrow at 9am', '2026-03-07T15:00:00Z', 'Brunch', '2026-03-08T13:00:00.000Z', true],
    ['tomorrow: pay bills', '2026-03-07T15:00:00Z', 'pay bills', '2026-03-08T05:00:00.000Z', false],
    ['Late call tonight at 11pm', '2026-03-10T12:00:00Z', 'Late call', '2026-03-11T03:00:00.000Z', true],
  ])('reads %j at %s', (title, at, cleaned, due, hasTime) => {
    expect(readDueFromTitle(title, 'America/New_York', new Date(at))).toEqual({
      title: cleaned,
      dueAt: new Date(due),
      hasDueTime: hasTime,
      phrase: expect.any(String),
    });
  });
});
