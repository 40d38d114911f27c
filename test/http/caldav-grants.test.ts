/**
 * CalDAV holds to the grant of the API key it signs in with (docs/auth.md "Grants"): a key
 * limited to one list shows only that collection, and a read-only key cannot write a task.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { createApiKey } from '../../src/domain/accounts/api-keys.js';
import { useTestServer } from '../support/server.js';
import { phoneTask } from '../support/caldav.js';

describe('CalDAV and grants', () => {
  const { server, ada } = useTestServer();
  let work: string;
  let tasks: string;

  beforeAll(async () => {
    const made = await fetch(`${server.baseUrl}/api/v1/lists`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ada.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Work', template: 'tasks' }),
    });
    work = ((await made.json()) as { id: string }).id;
    tasks = ((await (await fetch(`${server.baseUrl}/api/v1/lists`, { headers: { Authorization: `Bearer ${ada.key}` } })).json()) as { tasksListId: string })
      .tasksListId;
  });

  const basic = (key: string) => `Basic ${Buffer.from(`${ada.email}:${key}`).toString('base64')}`;
  const propfind = async (path: string, key: string) => {
    const res = await fetch(`${server.baseUrl}${path}`, { method: 'PROPFIND', headers: { depth: '1', authorization: basic(key) } });
    return { status: res.status, text: await res.text() };
  };

  it('shows a one-list key only its collection, and refuses another', async () => {
    const key = await createApiKey(server.db, ada.userId, { level: 'delete', lists: [work], later: false, since: new Date().toISOString() });
    const home = await propfind(`/dav/cal/${ada.userId}/`, key);
    expect(home.status).toBe(207);
    expect(home.text).toContain(work);
    expect(home.text).not.toContain(tasks);
    expect((await propfind(`/dav/cal/${ada.userId}/${tasks}/`, key)).status).toBe(404);
    expect((await propfind(`/dav/cal/${ada.userId}/${work}/`, key)).status).toBe(207);
  });

  it('refuses a task written with a read-only key', async () => {
    const key = await createApiKey(server.db, ada.userId, { level: 'read', lists: null, later: false, since: new Date().toISOString() });
    expect((await propfind(`/dav/cal/${ada.userId}/${work}/`, key)).status).toBe(207);
    const put = await fetch(`${server.baseUrl}/dav/cal/${ada.userId}/${work}/sneaky.ics`, {
      method: 'PUT',
      headers: { authorization: basic(key), 'content-type': 'text/calendar' },
      body: phoneTask('sneaky', 'Sneaky task'),
    });
    expect(put.status).toBe(403);
    expect(Number(((await server.db('items').where({ owner_id: ada.userId, title: 'Sneaky task' }).count({ n: '*' })) as { n: unknown }[])[0]!.n)).toBe(0);
  });
});
