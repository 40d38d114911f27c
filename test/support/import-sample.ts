/**
 * A workspace with something of everything an export carries, written through the API: tasks
 * timed, date-only, completed, archived and favorited, one with a subtask; a list of the person's own with a
 * property of every type; a note with an uploaded image its body shows; chats with the person
 * and an agent. And a helper that waits for an import to end.
 */
import { expect } from '@jest/globals';
import type { TestAccount } from './server.js';
import { PNG } from './images.js';
import { waitFor } from './jobs.js';

export async function seedWorkspace(who: TestAccount): Promise<void> {
  const { sdk } = who;
  const tasks = await sdk.POST('/items', {
    body: {
      listId: 'tasks',
      items: [
        { title: 'Dentist', dueAt: '2026-12-03T09:30:00Z', body: 'Bring the **card**', labels: ['health', 'errands'], reminderAt: '30 minutes before' },
        { title: 'Pay rent', dueAt: '2026-12-01', recurrence: 'monthly' },
        { title: 'Filed the taxes', taskStatus: 'completed' },
        { title: 'Old errand', externalId: 'todo-42' },
      ],
    },
  });
  expect(tasks.response.status).toBe(201);
  const [dentist, , , errand] = tasks.data!.items;
  await sdk.PATCH('/items', { body: { items: [{ itemId: errand!.id }], archived: true } });
  await sdk.PATCH('/items', { body: { items: [{ itemId: dentist!.id, assignedAgent: 'Planner' }], favorited: true, taskStatus: 'inProgress' } });
  await sdk.POST('/items/{id}/messages', { params: { path: { id: dentist!.id } }, body: { message: 'Booked for 9:30.', agentName: 'Planner' } });
  const sub = await sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Find the insurance card', parentId: dentist!.id }] } });
  expect(sub.data!.failed).toEqual([]);

  const list = await sdk.POST('/lists', {
    body: {
      name: 'Wines',
      icon: '🍷',
      instructions: 'One row per bottle',
      titleLabel: 'Wine',
      properties: [
        { name: 'Colour', type: 'select', options: [{ label: 'Red', color: 'red' }, 'White'] },
        { name: 'Notes', type: 'multiSelect', options: ['Dry', 'Fruity', 'Oaky'] },
        { name: 'Price', type: 'number' },
        { name: 'Bought', type: 'date' },
        { name: 'Tasted', type: 'checkbox' },
        { name: 'Shop', type: 'url' },
        { name: 'Seller', type: 'email' },
        { name: 'Region', type: 'text' },
      ],
    },
  });
  expect(list.response.status).toBe(201);
  const wines = await sdk.POST('/items', {
    body: {
      listId: list.data!.id,
      items: [
        {
          title: 'Rioja',
          values: {
            Colour: 'Red',
            Notes: ['Dry', 'Oaky'],
            Price: 12.5,
            Bought: '2026-10-01',
            Tasted: true,
            Shop: 'https://wine.example/rioja',
            Seller: 'sam@wine.example',
            Region: 'La Rioja',
          },
        },
        { title: 'Riesling', values: { Colour: 'White', Notes: ['Fruity'], Price: 9, Tasted: false }, labels: ['Errands'] },
      ],
    },
  });
  expect(wines.data!.failed).toEqual([]);

  const slot = (await sdk.POST('/uploads', { body: { mimeType: 'image/png', count: 1 } })).data!.uploads[0]!;
  expect((await fetch(slot.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: new Uint8Array(PNG) })).status).toBe(200);
  const note = await sdk.POST('/items', {
    body: {
      listId: 'notes',
      items: [{ title: 'Boiler', body: `# Boiler\n\n![the dial](listkeeper-attachment://attachment/${slot.bucketPath})`, imageUrls: [slot.bucketPath] }],
    },
  });
  expect(note.data!.imagesAttached).toBe(1);
  await sdk.POST('/items/{id}/messages', {
    params: { path: { id: note.data!.items[0]!.id } },
    body: { message: 'Which dial?', agentName: 'Helper', needsInput: true },
  });
}

/** Waits for the import to end and returns it. */
export async function importEnded(who: TestAccount, id: string) {
  return waitFor(async () => {
    const got = await who.sdk.GET('/imports/{id}', { params: { path: { id } } });
    expect(got.response.status).toBe(200);
    return ['succeeded', 'partial', 'failed'].includes(got.data!.status) ? got.data! : undefined;
  }, 30000);
}
