/**
 * Long bodies: the first read for editing parses and stores the outline; a process without
 * the parse in memory (here: after clearing it) loads the outline instead; an edit stores
 * the new version's outline; an outline of an older body is never used.
 */
import { describe, it, expect } from '@jest/globals';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { useTestServer } from '../../support/server.js';
import { create_items } from '../../../src/operations/create_items.js';
import { get_item } from '../../../src/operations/get_item.js';
import { update_items } from '../../../src/operations/update_items.js';
import { clearParsedBodies } from '../../../src/domain/body/cache.js';
import { OUTLINE_MIN_CHARS, prepareBody } from '../../../src/domain/body/outlines.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

function longBody(): string {
  const parts: string[] = [];
  for (let i = 0; parts.join('').length < OUTLINE_MIN_CHARS + 1000; i++)
    parts.push(`## Part ${i}\n\n- [ ] step ${i} one\n- [x] step ${i} two\n\nSome prose about part ${i}.\n\n`);
  return parts.join('');
}

describe('stored outlines of long bodies', () => {
  const { server, ada } = useTestServer();
  const ctx = () => server.context(ada);
  const outlineRow = (id: string) => server.db('body_outlines').where({ item_id: id }).first();

  it('are stored by the first read for editing and loaded, not parsed, by a process without the parse', async () => {
    const body = longBody();
    const id = (await create_items(ctx(), { listId: 'notes', items: [{ title: 'long', body }] })).items[0]!.id;
    clearParsedBodies();
    const first = await get_item(ctx(), { id, forEditing: true });
    expect((await outlineRow(id)).body_sha256).toBe(sha(body));
    clearParsedBodies();
    expect(await prepareBody(server.db, id, body)).toBe('outline');
    expect(await prepareBody(server.db, id, body)).toBe('cached');
    clearParsedBodies();
    expect((await get_item(ctx(), { id, forEditing: true })).body).toBe(first.body);
  });

  it('follow block edits: the edited version is stored, and loads to the same handles', async () => {
    const body = longBody();
    const id = (await create_items(ctx(), { listId: 'notes', items: [{ title: 'edited', body }] })).items[0]!.id;
    const read = await get_item(ctx(), { id, forEditing: true });
    const handle = /⟦([a-z0-9]+)⟧ - \[ \] step 3 one/.exec(read.body!)![1]!;
    const edited = (await update_items(ctx(), { items: [{ itemId: id, edits: [{ op: 'setChecked', handle, checked: true }] }] })).items[0]!;
    // The outline of the edited version is written after the answer, not awaited: wait for it (the row may be between versions).
    for (let i = 0; i < 100 && (await outlineRow(id))?.body_sha256 !== sha(edited.body!); i++) await sleep(20);
    expect((await outlineRow(id)).body_sha256).toBe(sha(edited.body!));
    const inMemory = (await get_item(ctx(), { id, forEditing: true })).body;
    clearParsedBodies();
    expect(await prepareBody(server.db, id, edited.body!)).toBe('outline');
    expect((await get_item(ctx(), { id, forEditing: true })).body).toBe(inMemory);
  });

  it('are not used for a body that changed since: it is parsed again and the outline replaced', async () => {
    const body = longBody();
    const id = (await create_items(ctx(), { listId: 'notes', items: [{ title: 'rewritten', body }] })).items[0]!.id;
    await get_item(ctx(), { id, forEditing: true });
    const changed = `${body}\nA new closing paragraph.\n`;
    await update_items(ctx(), { items: [{ itemId: id, body: changed }], mode: 'replace', confirmReplace: true });
    clearParsedBodies();
    expect(await prepareBody(server.db, id, changed)).toBe('parsed');
    expect((await outlineRow(id)).body_sha256).toBe(sha(changed));
  });

  it('are not kept for short bodies', async () => {
    const id = (await create_items(ctx(), { listId: 'notes', items: [{ title: 'short', body: '# a\n\n- [ ] b\n' }] })).items[0]!.id;
    await get_item(ctx(), { id, forEditing: true });
    expect(await outlineRow(id)).toBeUndefined();
  });
});
