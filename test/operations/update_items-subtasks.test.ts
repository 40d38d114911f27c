/**
 * Subtasks, over REST, MCP and the SDK: made with parentId (same list, one level), counted on
 * list reads and listed on get_item; a parent with open subtasks is not completed; moving,
 * trashing and restoring a parent carries its subtasks; a subtask moved or restored without
 * its parent stands alone; the changes feed shows the subtasks moving.
 */
import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';

describe('subtasks', () => {
  const { server, ada } = useTestServer();

  const create = async (items: Record<string, unknown>[], listId = 'tasks') =>
    (await ada.sdk.POST('/items', { body: { listId, items: items as never } })).data!;
  const getItem = async (id: string) => (await ada.sdk.GET('/items/{id}', { params: { path: { id } } })).data!;

  it('nests subtasks under a task, counts and lists them, and refuses what would nest wrongly', async () => {
    const parent = (await create([{ title: 'Plan the trip' }])).items[0]!;
    const made = await create([
      { title: 'Book flights', parentId: parent.id, dueAt: '2026-12-01T09:30:00.123Z' },
      { title: 'Book hotel', parentId: parent.id },
    ]);
    expect(made.items.map((i) => i.parentId)).toEqual([parent.id, parent.id]);
    const listed = (await ada.sdk.GET('/items', { params: { query: { listId: 'tasks' } } })).data!.items;
    expect(listed.find((i) => i.id === parent.id)).toMatchObject({ parentId: null, subtasks: { count: 2, open: 2 } });
    const read = await getItem(parent.id);
    expect(read.children!.map((c) => c.title)).toEqual(['Book flights', 'Book hotel']);
    // Read in the item's own statement (as JSON): the same fields as the driver's rows would give.
    expect(read.children![0]).toEqual({ id: made.items[0]!.id, title: 'Book flights', taskStatus: 'todo', dueAt: '2026-12-01T09:30:00.123Z' });
    expect(read.children![1]!.dueAt).toBeNull();
    expect(read.subtasks).toEqual({ count: 2, open: 2 });

    const note = (await create([{ title: 'Elsewhere' }], 'notes')).items[0]!;
    const refused = await create([
      { title: 'Too deep', parentId: made.items[0]!.id },
      { title: 'Other list', parentId: note.id },
      { title: 'Nobody', parentId: '00000000-0000-4000-8000-000000000000' },
    ]);
    expect(refused.failed.map((f) => f.reason)).toEqual([
      "parentId: 'Book flights' is itself a subtask; subtasks go one level deep.",
      "parentId: 'Elsewhere' is on another list; a subtask stays on its parent's list.",
      'parentId: no live item 00000000-0000-4000-8000-000000000000 of yours to nest under.',
    ]);
    const self = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: parent.id, parentId: parent.id }] } });
    expect(self.error).toMatchObject({ code: 'toolError', error: expect.stringContaining('an item cannot be its own subtask') });
    const detached = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: made.items[1]!.id, parentId: '' }] } });
    expect(detached.data!.items[0]!.parentId).toBeNull();
  });

  it('completes a parent only once its subtasks are done, subtasks first in the same call', async () => {
    const parent = (await create([{ title: 'Move house' }])).items[0]!;
    const [a, b] = (
      await create([
        { title: 'Pack', parentId: parent.id },
        { title: 'Clean', parentId: parent.id },
      ])
    ).items;
    const refused = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: parent.id }], taskStatus: 'completed' } });
    expect(refused.response.status).toBe(409);
    expect(refused.error!.error).toContain("'Move house' has 2 open subtasks (Pack, Clean): complete them first, or list them before it in the same call.");
    const done = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: a!.id }, { itemId: b!.id }, { itemId: parent.id }], taskStatus: 'completed' } });
    expect(done.data!.items.map((i) => i.taskStatus)).toEqual(['completed', 'completed', 'completed']);
  });

  it('moves, trashes and restores a parent with its subtasks', async () => {
    const project = (await ada.sdk.POST('/lists', { body: { name: 'Projects', template: 'tasks' } })).data!;
    const parent = (await create([{ title: 'Garden shed' }])).items[0]!;
    const kids = (
      await create([
        { title: 'Buy wood', parentId: parent.id },
        { title: 'Get permit', parentId: parent.id },
      ])
    ).items;
    const since = (await ada.sdk.GET('/items', { params: { query: { listId: project.id, changedSince: new Date(Date.now() - 1000).toISOString() } } })).data!
      .nextChangedSince!;

    const moved = await ada.sdk.POST('/items/move', { body: { itemIds: [parent.id], listId: project.id } });
    expect(moved.data!.items.map((i) => [i.title, i.listId, i.parentId])).toEqual([
      ['Garden shed', project.id, null],
      ['Buy wood', project.id, parent.id],
      ['Get permit', project.id, parent.id],
    ]);
    const feed = (await ada.sdk.GET('/items', { params: { query: { listId: project.id, changedSince: since } } })).data!;
    expect(feed.items.map((i) => i.title).sort()).toEqual(['Buy wood', 'Garden shed', 'Get permit']);

    // A subtask moved alone leaves its parent.
    const alone = await ada.sdk.POST('/items/move', { body: { itemIds: [kids[1]!.id], listId: 'tasks' } });
    expect(alone.data!.items[0]).toMatchObject({ listId: expect.any(String), parentId: null });

    const trashed = await ada.sdk.DELETE('/items', { body: { itemIds: [parent.id] } });
    expect(trashed.response.status).toBe(200);
    expect((await server.db('items').where({ id: kids[0]!.id }).first()).deleted_at).not.toBeNull();
    const restored = await ada.sdk.POST('/trash/restore', { body: { type: 'item', id: parent.id } });
    expect(restored.data).toMatchObject({ restored: true, restoredItems: 1 });
    expect((await getItem(parent.id)).children!.map((c) => c.title)).toEqual(['Buy wood']);

    // A subtask restored while its parent is still in the trash comes back on its own.
    await ada.sdk.DELETE('/items', { body: { itemIds: [parent.id] } });
    const child = await ada.sdk.POST('/trash/restore', { body: { type: 'item', id: kids[0]!.id } });
    expect(child.data).toMatchObject({ restored: true });
    expect((await getItem(kids[0]!.id)).parentId).toBeNull();
  });

  it('takes parentId over MCP', async () => {
    const client = await server.mcp(ada);
    const parent = (await create([{ title: 'Birthday party' }])).items[0]!;
    const made = await client.callTool({ name: 'create_items', arguments: { listId: 'tasks', items: [{ title: 'Send invites', parentId: parent.id }] } });
    expect((made.structuredContent as { items: { parentId: string }[] }).items[0]!.parentId).toBe(parent.id);
    const read = await client.callTool({ name: 'get_item', arguments: { id: parent.id } });
    expect((read.structuredContent as { subtasks: unknown }).subtasks).toEqual({ count: 1, open: 1 });
    await client.close();
  });
});
