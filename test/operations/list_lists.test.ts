import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { list_lists } from '../../src/operations/list_lists.js';
import { create_list } from '../../src/operations/create_list.js';

describe('list_lists', () => {
  const { server, ada } = useTestServer();

  it('names the Tasks and Notes lists by id and counts every live list', async () => {
    const result = await list_lists(server.context(ada), {});
    expect(result.total).toBe(3);
    expect(result.lists.find((l) => l.id === result.tasksListId)?.name).toBe('Tasks');
    expect(result.lists.find((l) => l.id === result.notesListId)?.name).toBe('Notes');
  });

  it('gives the Tasks list the task columns and role tasks', async () => {
    const { lists, tasksListId } = await list_lists(server.context(ada), {});
    const tasks = lists.find((l) => l.id === tasksListId)!;
    expect(tasks).toMatchObject({ role: 'tasks', statusPropertyId: 'status', dueDatePropertyId: 'dueDate', itemCount: 0 });
    expect(tasks.properties.map((p) => p.id)).toEqual(['status', 'dueDate']);
  });

  it('replaces select options with optionCount when suppressOptions is true', async () => {
    await create_list(server.context(ada), { name: 'Books', properties: [{ name: 'Status', type: 'select', options: ['To read', 'Read'] }] });
    const full = await list_lists(server.context(ada), {});
    const suppressed = await list_lists(server.context(ada), { suppressOptions: true });
    const books = (r: typeof full) => r.lists.find((l) => l.name === 'Books')!.properties[0]!;
    expect(books(full).options?.map((o) => o.label)).toEqual(['To read', 'Read']);
    expect(books(suppressed)).toEqual({ id: books(full).id, name: 'Status', type: 'select', optionCount: 2 });
  });

  it("never shows another account's lists", async () => {
    const bea = await server.account('Bea');
    await create_list(server.context(bea), { name: 'Bea secret list' });
    const { lists } = await list_lists(server.context(ada), {});
    expect(lists.map((l) => l.name)).not.toContain('Bea secret list');
  });

  it('is reachable through the SDK', async () => {
    const { data, error } = await ada.sdk.GET('/lists', { params: { query: { suppressOptions: true } } });
    expect(error).toBeUndefined();
    expect(data?.total).toBeGreaterThanOrEqual(3);
  });
});
