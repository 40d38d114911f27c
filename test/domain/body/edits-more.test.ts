/** Block edits, continued: rewrite, tables and fences, CRLF bodies, refusals and handles across calls. */
import { describe, expect, it } from '@jest/globals';
import { applyEdits, bodyVersion, readForEditing, type BodyEdit } from '../../../src/domain/body/index.js';
import { edited, groceries, handleOf, refused } from './edit-helpers.js';

describe('rewrite', () => {
  it('replaces the whole body when baseVersion is the current version', () => {
    const result = applyEdits(groceries, [{ op: 'rewrite', baseVersion: bodyVersion(groceries), markdown: '# New\n' }]);
    expect(result).toMatchObject({ ok: true, body: '# New\n', version: bodyVersion('# New\n'), applied: ['rewrote the whole body'] });
  });

  it('refuses a stale baseVersion and returns the current body with fresh handles', () => {
    const result = refused(groceries, { op: 'rewrite', baseVersion: bodyVersion('something older'), markdown: '# New\n' });
    expect(result.error).toMatch(/is not the current version/);
    expect(result).toMatchObject({ body: groceries, version: bodyVersion(groceries), editIndex: 0 });
    expect(result.editable).toEqual(readForEditing(groceries));
  });

  it("writes the new body with the old body's CRLF line endings", () => {
    const body = 'old\r\n';
    expect(edited(body, { op: 'rewrite', baseVersion: bodyVersion(body), markdown: '# a\n\nb\n' })).toBe('# a\r\n\r\nb\r\n');
  });

  it('refuses handle edits after a rewrite in the same call', () => {
    const result = refused(
      groceries,
      { op: 'rewrite', baseVersion: bodyVersion(groceries), markdown: '# New\n' },
      { op: 'delete', handle: handleOf(groceries, 'milk') },
    );
    expect(result.editIndex).toBe(1);
    expect(result.error).toMatch(/rewrote the whole body/);
  });
});

describe('every op on tables and fences holding Markdown', () => {
  const body = 'Intro\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```md\n# inside\n- [ ] inside\n```\n\nOutro\n';
  const table = (): string => readForEditing(body).handles[1]!;
  const fence = (): string => readForEditing(body).handles[2]!;

  it.each<[string, () => BodyEdit, string]>([
    [
      'inserts after a table, apart from it',
      () => ({ op: 'insert', position: 'after', handle: table(), markdown: 'Below the table.' }),
      '| 1 | 2 |\n\nBelow the table.\n\n```md',
    ],
    [
      'inserts before a fence, apart from it',
      () => ({ op: 'insert', position: 'before', handle: fence(), markdown: '- [ ] a task' }),
      '| 1 | 2 |\n\n- [ ] a task\n\n```md',
    ],
    ['deletes a table', () => ({ op: 'delete', handle: table() }), 'Intro\n\n```md'],
    ['deletes a fence with the Markdown inside it', () => ({ op: 'delete', handle: fence() }), '| 1 | 2 |\n\nOutro\n'],
    ['moves a table to the end', () => ({ op: 'move', handle: table(), position: 'end' }), 'Outro\n\n| a | b |\n|---|---|\n| 1 | 2 |\n'],
  ])('%s', (_name, makeEdit, expected) => {
    expect(edited(body, makeEdit())).toContain(expected);
  });

  it('refuses setChecked on a table', () => {
    expect(refused(body, { op: 'setChecked', handle: table(), checked: true }).error).toMatch(/not a task list item/);
  });

  it('replaces text in a nested item, keeping everything around it', () => {
    expect(edited(groceries, { op: 'replaceText', handle: handleOf(groceries, 'white'), find: 'white', replace: 'white, large' })).toBe(
      groceries.replace('  - [ ] white', '  - [ ] white, large'),
    );
  });
});

describe('CRLF bodies', () => {
  const crlf = groceries.replace(/\n/g, '\r\n');

  it.each<[string, (body: string) => BodyEdit]>([
    ['insert', (body) => ({ op: 'insert', position: 'after', handle: handleOf(body, 'milk'), markdown: 'A note\nover two lines.' })],
    ['replace', (body) => ({ op: 'replace', handle: handleOf(body, 'Notes'), markdown: 'New notes\nand more.\n\n- [ ] a task' })],
    ['delete', (body) => ({ op: 'delete', handle: handleOf(body, 'eggs') })],
    ['move', (body) => ({ op: 'move', handle: handleOf(body, 'brown'), position: 'end' })],
    ['setChecked', (body) => ({ op: 'setChecked', handle: handleOf(body, 'milk'), checked: true })],
  ])('%s writes CRLF only', (_name, makeEdit) => {
    const body = edited(crlf, makeEdit(crlf));
    expect(body).not.toBe(crlf);
    expect(body.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  });
});

describe('refusals', () => {
  it('refuses a handle that is not in the body, telling the agent to read again', () => {
    const result = refused(groceries, { op: 'delete', handle: 'zz99' });
    expect(result.error).toMatch(/not in the current body.*read the body again/);
    expect(result).toMatchObject({ body: groceries, version: bodyVersion(groceries), editIndex: 0 });
  });

  it('refuses a handle of a block that changed since it was read', () => {
    const stale = handleOf(groceries, 'milk');
    const changed = edited(groceries, { op: 'replaceText', handle: stale, find: 'milk', replace: 'cream' });
    expect(refused(changed, { op: 'setChecked', handle: stale, checked: true }).error).toMatch(/not in the current body/);
  });

  it('applies all edits or none', () => {
    const result = refused(
      groceries,
      { op: 'delete', handle: handleOf(groceries, 'milk') },
      { op: 'replaceText', handle: handleOf(groceries, 'bread'), find: 'nope', replace: 'x' },
    );
    expect(result.editIndex).toBe(1);
    expect(result.body).toBe(groceries);
  });

  it('refuses a malformed edit, naming its index and field', () => {
    const result = applyEdits(groceries, [{ op: 'delete', handle: handleOf(groceries, 'milk') }, { op: 'setChecked', handle: 'k3f' } as unknown as BodyEdit]);
    expect(result).toMatchObject({ ok: false, editIndex: 1, error: 'checked must be true or false.' });
  });

  it('refuses markdown that is only a handle', () => {
    expect(refused(groceries, { op: 'insert', position: 'end', markdown: '\u27e6k3f\u27e7 ' }).error).toMatch(/markdown is empty/);
  });

  it('refuses to replace a block with nothing', () => {
    expect(refused(groceries, { op: 'replaceText', handle: handleOf(groceries, 'Notes'), find: 'Notes after the list.', replace: '' }).error).toMatch(
      /empty; use delete/,
    );
  });
});

describe('handles across calls', () => {
  it('keeps the handles of untouched blocks after an edit', () => {
    const before = readForEditing(groceries).handles;
    const after = readForEditing(edited(groceries, { op: 'setChecked', handle: handleOf(groceries, 'milk'), checked: true })).handles;
    const changed = before.filter((h) => !after.includes(h));
    expect(changed).toEqual([handleOf(groceries, 'milk')]);
  });

  it('accepts a handle as displayed, with brackets', () => {
    const handle = handleOf(groceries, 'milk');
    expect(applyEdits(groceries, [{ op: 'setChecked', handle: `\u27e6${handle}\u27e7`, checked: true }])).toMatchObject({ ok: true });
  });
});
