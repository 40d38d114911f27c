/**
 * `listkeeper apikey create` with a grant: the key it prints reads only the lists named and
 * writes nothing (docs/auth.md "Grants").
 */
import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { runCli } from '../support/cli.js';

describe('listkeeper apikey create with a grant', () => {
  const { server, ada } = useTestServer();

  const cli = (args: string[]) => runCli(server.dbUrl, args);

  it('--read-only --lists Groceries makes a key that reads Groceries alone and writes nothing', async () => {
    const made = await fetch(`${server.baseUrl}/api/v1/lists`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ada.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Groceries' }),
    });
    expect(made.status).toBe(201);
    const run = await cli(['apikey', 'create', '--email', ada.email, '--read-only', '--lists', 'Groceries']);
    expect(run.code).toBe(0);
    const key = run.stdout.trim();
    const auth = { Authorization: `Bearer ${key}` };
    const lists = (await (await fetch(`${server.baseUrl}/api/v1/lists`, { headers: auth })).json()) as { lists: { name: string }[] };
    expect(lists.lists.map((l) => l.name)).toEqual(['Groceries']);
    const write = await fetch(`${server.baseUrl}/api/v1/items`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ listId: 'Groceries', items: [{ title: 'Milk' }] }),
    });
    expect(write.status).toBe(403);
    expect(write.headers.get('www-authenticate')).toMatch(/error="insufficient_scope", scope="lists:write list:[0-9a-f-]{36}"/);
  });

  it('--no-deletes makes a key that writes but cannot delete', async () => {
    const key = (await cli(['apikey', 'create', '--email', ada.email, '--no-deletes'])).stdout.trim();
    const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const made = await fetch(`${server.baseUrl}/api/v1/items`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ listId: 'tasks', items: [{ title: 'Call' }] }),
    });
    expect(made.status).toBe(201);
    const id = ((await made.json()) as { items: { id: string }[] }).items[0]!.id;
    const gone = await fetch(`${server.baseUrl}/api/v1/items`, { method: 'DELETE', headers: auth, body: JSON.stringify({ itemIds: [id] }) });
    expect(gone.status).toBe(403);
  });
});
