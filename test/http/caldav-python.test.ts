/**
 * CalDAV driven by Python's caldav library (PyPI, pinned in test/http/caldav-requirements.txt,
 * in the venv `make caldav-venv` makes), one command a process through
 * test/http/caldav_client.py: discovery; a task made on the phone reaches REST with every
 * mapped field; the phone's edit of every mapped field reaches REST, and a REST edit reaches
 * the phone with what listkeeper does not map intact; sync-collection by token reports only
 * the changes and the deletions; a save over a task changed meanwhile is refused (412); a
 * delete on each side reaches the other.
 */
import { describe, it, expect } from '@jest/globals';
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { useTestServer } from '../support/server.js';
import { phoneSubtask, phoneTask, readTask } from '../support/caldav.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname ?? '.', '../..');
const PYTHON = path.join(root, '.venv-caldav/bin/python');
const CLIENT = path.join(root, 'test/http/caldav_client.py');

describe('CalDAV with Python caldav', () => {
  const { server, ada } = useTestServer();

  async function phone<T = Record<string, unknown>>(command: string, args: Record<string, unknown> = {}): Promise<T> {
    if (!existsSync(PYTHON)) throw new Error('the caldav venv is missing: run `make caldav-venv` (make test does) before this suite.');
    const { stdout } = await run(PYTHON, [CLIENT, command, `${server.baseUrl}/.well-known/caldav`, ada.email, ada.key, JSON.stringify(args)], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    });
    return JSON.parse(stdout) as T;
  }

  async function item(title: string) {
    const list = await ada.sdk.GET('/items', { params: { query: { listId: 'tasks', limit: 100 } } });
    const found = list.data!.items.find((i) => i.title === title);
    return found ? (await ada.sdk.GET('/items/{id}', { params: { path: { id: found.id } } })).data! : undefined;
  }

  const shown = async (uid: string) => readTask((await phone<{ ics: string }>('get', { calendar: '✅ Tasks', uid })).ics);

  it('finds the task lists', async () => {
    expect(await phone('calendars')).toEqual([
      expect.objectContaining({ name: '✅ Tasks', components: ['VTODO'] }),
      expect.objectContaining({ name: '🗂️ Life Admin', components: ['VTODO'] }),
    ]);
  });

  it('round-trips every mapped field: made on the phone, edited on both sides', async () => {
    await phone('add', { calendar: '✅ Tasks', ics: phoneTask('py-plants', 'Water the ferns') });
    await phone('add', { calendar: '✅ Tasks', ics: phoneSubtask('py-food', 'py-plants') });
    const ferns = (await item('Water the ferns'))!;
    expect(ferns).toMatchObject({
      taskStatus: 'inProgress',
      dueAt: '2026-12-10T17:00:00.000Z',
      reminderAt: '2026-12-10T16:00:00.000Z',
      labels: ['home', 'garden'],
    });
    expect(ferns.recurrence?.rule).toBe('FREQ=WEEKLY;BYDAY=TH');
    expect((await item('Buy plant food'))!.parentId).toBe(ferns.id);

    await phone('edit', {
      calendar: '✅ Tasks',
      uid: 'py-plants',
      set: {
        summary: 'Water the ferns well',
        description: 'Only the balcony',
        due: '2026-12-20',
        categories: ['garden'],
        rrule: 'FREQ=DAILY',
        alarm_before_minutes: 90,
        status: 'NEEDS-ACTION',
      },
    });
    const edited = (await item('Water the ferns well'))!;
    expect(edited).toMatchObject({ body: 'Only the balcony', taskStatus: 'todo', hasDueTime: false, labels: ['garden'] });
    expect(edited.dueAt?.slice(0, 10)).toBe('2026-12-20');
    expect(edited.recurrence?.rule).toBe('FREQ=DAILY');
    // 90 minutes before the start of 20 December in London.
    expect(edited.reminderAt).toBe('2026-12-19T22:30:00.000Z');
    await phone('edit', { calendar: '✅ Tasks', uid: 'py-food', set: { related_to: null } });
    expect((await item('Buy plant food'))!.parentId).toBeNull();

    await ada.sdk.PATCH('/items', { body: { items: [{ itemId: edited.id, title: 'Ferns', recurrence: '', reminderAt: '' }], taskStatus: 'completed' } });
    expect(await shown('py-plants')).toMatchObject({
      summary: 'Ferns',
      description: 'Only the balcony',
      status: 'COMPLETED',
      due: '2026-12-20',
      rrule: null,
      categories: ['garden'],
      priority: 1,
      sortOrder: '42',
      // The reminder's alarm is gone; the phone's second alarm stays.
      alarms: [{ trigger: '2026-12-10T12:00:00.000Z', related: null, uid: null, action: 'AUDIO' }],
    });
    expect((await shown('py-plants')).completed).not.toBeNull();
  });

  it('syncs by token: only the changes, and the deletions', async () => {
    const [kept, changed, gone] = (
      await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Py kept' }, { title: 'Py changed' }, { title: 'Py gone' }] } })
    ).data!.items;
    const first = await phone<{ token: string; changed: string[] }>('sync', { calendar: '✅ Tasks' });
    expect(first.changed).toEqual(expect.arrayContaining([kept!.id, changed!.id, gone!.id]));
    await ada.sdk.PATCH('/items', { body: { items: [{ itemId: changed!.id, title: 'Py changed again' }] } });
    await ada.sdk.DELETE('/items', { body: { itemIds: [gone!.id] } });
    const next = await phone<{ token: string; changed: string[]; deleted: string[] }>('sync', { calendar: '✅ Tasks', token: first.token });
    expect(next.changed).toEqual([changed!.id]);
    expect(next.deleted).toEqual([`${gone!.id}.ics`]);
    expect(next.token).not.toBe(first.token);
  });

  it('refuses a save over a task changed since the phone read it (412), and deletes on each side', async () => {
    const [contested, doomed] = (await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Py contested' }, { title: 'Py doomed' }] } })).data!
      .items;
    const child = spawn(
      PYTHON,
      [
        CLIENT,
        'edit',
        `${server.baseUrl}/.well-known/caldav`,
        ada.email,
        ada.key,
        JSON.stringify({ calendar: '✅ Tasks', uid: contested!.id, wait: true, set: { summary: 'From the phone' } }),
      ],
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const lines: string[] = [];
    const ended = new Promise<void>((resolve) => child.on('close', () => resolve()));
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        if (lines.length === 1) resolve();
      }),
    );
    await ada.sdk.PATCH('/items', { body: { items: [{ itemId: contested!.id, title: 'From the web' }] } });
    child.stdin.end('go\n');
    await ended;
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ error: 'ETagMismatchError' });
    expect((await item('From the web'))?.id).toBe(contested!.id);

    expect(await phone('delete', { calendar: '✅ Tasks', uid: doomed!.id })).toEqual({ deleted: true });
    expect((await ada.sdk.GET('/items/{id}', { params: { path: { id: doomed!.id } } })).response.status).toBe(404);
    await ada.sdk.DELETE('/items', { body: { itemIds: [contested!.id] } });
    expect(await phone('get', { calendar: '✅ Tasks', uid: contested!.id })).toMatchObject({ error: 'NotFoundError' });
  });
});
