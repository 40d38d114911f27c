import { describe, expect, it } from '@jest/globals';
import { applyEdits, readForEditing, stripHandles } from '../../../src/domain/body/index.js';
import { edited, groceries, handleOf, refused } from './edit-helpers.js';

describe('readForEditing', () => {
  it('puts a handle in front of every block, before the bullet of list items', () => {
    const { text, handles } = readForEditing(groceries);
    expect(handles).toHaveLength(7);
    expect(text.split('\n').map((line) => line.replace(/\u27e6[a-z0-9]{3,4}\u27e7 /, '⟦⟧ '))).toEqual([
      '⟦⟧ # Groceries',
      '',
      '⟦⟧ - [ ] milk',
      '⟦⟧ - [x] eggs',
      '  ⟦⟧ - [ ] brown',
      '  ⟦⟧ - [ ] white',
      '⟦⟧ - bread',
      '',
      '⟦⟧ Notes after the list.',
      '',
    ]);
    expect(stripHandles(text)).toBe(groceries);
  });

  it('treats a fence containing Markdown, a table and a quote as one block each', () => {
    const body = '```md\n# not a heading\n- [ ] not a task\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n> - not an item\n';
    const { text, handles } = readForEditing(body);
    expect(handles).toHaveLength(3);
    expect(text.match(/\u27e6/g)).toHaveLength(3);
  });

  it('gives identical blocks distinct handles, the same ones on every read', () => {
    const body = '- [ ] same\n- [ ] same\n- [ ] same\n';
    const first = readForEditing(body).handles;
    expect(new Set(first).size).toBe(3);
    expect(readForEditing(body).handles).toEqual(first);
  });

  it('keeps handle-like text in the body apart from the handles', () => {
    const body = 'Write \u27e6k3f\u27e7 like this.\n\n\u27e6ab2\u27e7 starts this paragraph.\n';
    const { text } = readForEditing(body);
    expect(stripHandles(text)).toBe(body);
  });

  it('starts a heading underlined below link definitions at its own text, not at the first definition', () => {
    const body = '[ref]: /url\n[other]: /else\nTitle\n===\n\ntext\n';
    const { text } = readForEditing(body);
    expect(text.replace(/\u27e6[a-z0-9]{3,4}\u27e7 /g, '⟦⟧ ')).toBe('⟦⟧ [ref]: /url\n⟦⟧ [other]: /else\n⟦⟧ Title\n===\n\n⟦⟧ text\n');
    expect(edited(body, { op: 'replace', handle: handleOf(body, 'Title'), markdown: '# Heading' })).toBe('[ref]: /url\n[other]: /else\n\n# Heading\n\ntext\n');
  });

  it('reads CRLF bodies and keeps their line endings', () => {
    const body = groceries.replace(/\n/g, '\r\n');
    const { text } = readForEditing(body);
    expect(text).not.toMatch(/[^\r]\n/);
    expect(stripHandles(text)).toBe(body);
  });
});

describe('setChecked', () => {
  it.each([
    ['checks an open task', 'milk', true, '- [x] milk', 'checked'],
    ['unchecks a done task', 'eggs', false, '- [ ] eggs', 'unchecked'],
    ['checks a nested task, keeping its indentation', 'brown', true, '  - [x] brown', 'checked'],
  ])('%s', (_name, snippet, checked, line, verb) => {
    const handle = handleOf(groceries, snippet);
    const result = applyEdits(groceries, [{ op: 'setChecked', handle, checked }]);
    expect(result).toMatchObject({ ok: true, applied: [`${verb} ${handle}`] });
    if (result.ok) expect(result.body).toBe(groceries.replace(new RegExp(`^ *- \\[.\\] ${snippet}$`, 'm'), line));
  });

  it('reports a task that already has the asked state, changing nothing', () => {
    const handle = handleOf(groceries, 'eggs');
    expect(applyEdits(groceries, [{ op: 'setChecked', handle, checked: true }])).toMatchObject({
      ok: true,
      body: groceries,
      applied: [`${handle} was already checked`],
    });
  });

  it.each([
    ['a plain list item', '- bread'],
    ['a heading', 'Groceries'],
    ['a paragraph', 'Notes after'],
  ])('refuses %s, which has no checkbox', (_name, snippet) => {
    const result = refused(groceries, { op: 'setChecked', handle: handleOf(groceries, snippet), checked: true });
    expect(result.error).toMatch(/not a task list item/);
  });

  it('refuses a code fence even when the Markdown inside it shows checkboxes', () => {
    const body = '```md\n- [ ] inside a fence\n```\n';
    expect(refused(body, { op: 'setChecked', handle: readForEditing(body).handles[0]!, checked: true }).error).toMatch(/not a task/);
  });
});

describe('replace', () => {
  it('replaces a nested item, keeping its depth', () => {
    const body = edited(groceries, { op: 'replace', handle: handleOf(groceries, 'brown'), markdown: '- [ ] speckled' });
    expect(body).toBe(groceries.replace('  - [ ] brown', '  - [ ] speckled'));
  });

  it('keeps bullet and checkbox when an item is replaced by plain text', () => {
    const body = edited(groceries, { op: 'replace', handle: handleOf(groceries, 'eggs'), markdown: 'duck eggs' });
    expect(body).toBe(groceries.replace('- [x] eggs', '- [x] duck eggs'));
  });

  it('changes only the item itself: its nested items stay under it', () => {
    const body = edited(groceries, { op: 'replace', handle: handleOf(groceries, 'eggs'), markdown: '* [ ] eggs, a dozen' });
    expect(body).toContain('- [ ] eggs, a dozen\n  - [ ] brown\n  - [ ] white\n');
  });

  it('gives a task replaced by a heading no checkbox, which would turn the heading into text', () => {
    const body = edited(groceries, { op: 'replace', handle: handleOf(groceries, 'milk'), markdown: '## Dairy' });
    expect(body).toContain('- ## Dairy\n- [x] eggs');
  });

  it('separates nested items from a replacement that ends in an HTML block, which would swallow them', () => {
    const body = edited(groceries, { op: 'replace', handle: handleOf(groceries, 'eggs'), markdown: '<details>\neggs\n</details>' });
    expect(body).toContain('- <details>\n  eggs\n  </details>\n\n  - [ ] brown');
    expect(readForEditing(body).handles).toHaveLength(7);
  });

  it("puts a multi-line replacement at the item's indentation", () => {
    const body = edited(groceries, { op: 'replace', handle: handleOf(groceries, 'white'), markdown: '- [ ] white\n  large ones' });
    expect(body).toContain('  - [ ] white\n    large ones\n- bread');
  });

  it('replaces a table with a table', () => {
    const body = 'Intro\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nOutro\n';
    const handle = readForEditing(body).handles[1]!;
    expect(edited(body, { op: 'replace', handle, markdown: '| x |\n|---|\n| 9 |' })).toBe('Intro\n\n| x |\n|---|\n| 9 |\n\nOutro\n');
  });

  it('replaces a fence containing Markdown as a whole', () => {
    const body = '```md\n# old\n- [ ] old\n```\n\nAfter\n';
    const handle = readForEditing(body).handles[0]!;
    expect(edited(body, { op: 'replace', handle, markdown: '```md\n# new\n```' })).toBe('```md\n# new\n```\n\nAfter\n');
  });

  it('keeps a replaced heading apart from the paragraph after it', () => {
    const body = '# Title\nText right under it.\n';
    const handle = handleOf(body, 'Title');
    expect(edited(body, { op: 'replace', handle, markdown: 'Just text' })).toBe('Just text\n\nText right under it.\n');
  });

  it('removes handles the markdown accidentally carries', () => {
    const handle = handleOf(groceries, 'milk');
    expect(edited(groceries, { op: 'replace', handle, markdown: `\u27e6${handle}\u27e7 - [ ] oat milk` })).toBe(groceries.replace('milk', 'oat milk'));
  });
});

describe('insert', () => {
  it.each([
    ['after a nested item: joins the nested list', 'brown', 'after', '- [ ] speckled', '  - [ ] brown\n  - [ ] speckled\n  - [ ] white'],
    ['before a nested item: joins the nested list', 'white', 'before', '* [ ] speckled', '  - [ ] brown\n  - [ ] speckled\n  - [ ] white'],
    ['after an item: goes after its nested items', 'eggs', 'after', '- [ ] cheese', '  - [ ] white\n- [ ] cheese\n- bread'],
    ['a paragraph after an item: separated by blank lines', 'milk', 'after', 'Dairy above.', '- [ ] milk\n\nDairy above.\n\n- [x] eggs'],
    ['a paragraph after a nested item: stays inside the parent item', 'white', 'after', 'Loose note.', '  - [ ] white\n\n  Loose note.\n\n- bread'],
  ])('%s', (_name, snippet, position, markdown, expected) => {
    const body = edited(groceries, { op: 'insert', position: position as 'before' | 'after', handle: handleOf(groceries, snippet), markdown });
    expect(body).toContain(expected);
  });

  it.each([
    ['at the start', 'start', '- [ ] first\n\n# Groceries\n'],
    ['at the end', 'end', 'Notes after the list.\n\n- [ ] last\n'],
  ])('inserts %s, kept apart by a blank line', (_name, position, expected) => {
    const body = edited(groceries, { op: 'insert', position: position as 'start' | 'end', markdown: `- [ ] ${position === 'start' ? 'first' : 'last'}` });
    expect(body).toContain(expected);
  });

  it('joins items inserted at the start of an indented list, at its indentation', () => {
    expect(edited('  - a\n    more\n  - b\n', { op: 'insert', position: 'start', markdown: '- new\n  more' })).toBe(
      '  - new\n    more\n  - a\n    more\n  - b\n',
    );
  });

  it('joins items inserted at the end of a body that ends with a list', () => {
    expect(edited('- a\n- b\n', { op: 'insert', position: 'end', markdown: '* c' })).toBe('- a\n- b\n- c\n');
  });

  it('numbers items inserted into an ordered list, re-indenting what they carry', () => {
    const body = '1. one\n2. two\n3. three\n';
    const result = edited(body, { op: 'insert', position: 'after', handle: handleOf(body, 'two'), markdown: '- new\n  - sub' });
    expect(result).toBe('1. one\n2. two\n3. new\n   - sub\n3. three\n');
  });

  it("judges looseness by the item's own list, not a neighbouring list", () => {
    const body = '1. one\n2. two\n\n- bullet\n';
    const [one, , bullet] = readForEditing(body).handles;
    expect(edited(body, { op: 'move', handle: one!, position: 'after', target: bullet! })).toBe('2. two\n\n- bullet\n- one\n');
  });

  it('keeps a loose list loose', () => {
    const body = '- a\n\n- b\n';
    expect(edited(body, { op: 'insert', position: 'after', handle: handleOf(body, 'a'), markdown: '- new' })).toBe('- a\n\n- new\n\n- b\n');
  });

  it('inserts into an empty body', () => {
    expect(edited('', { op: 'insert', position: 'end', markdown: '# Hello' })).toBe('# Hello');
  });

  it('reports how many blocks went in', () => {
    const result = applyEdits(groceries, [{ op: 'insert', position: 'end', markdown: 'One.\n\nTwo.' }]);
    expect(result).toMatchObject({ ok: true, applied: ['inserted 2 blocks at the end'] });
  });
});

describe('delete', () => {
  it('deletes an item with its nested items', () => {
    const handle = handleOf(groceries, 'eggs');
    const result = applyEdits(groceries, [{ op: 'delete', handle }]);
    expect(result).toMatchObject({ ok: true, applied: [`deleted ${handle} and 2 nested blocks`] });
    if (result.ok) expect(result.body).toBe('# Groceries\n\n- [ ] milk\n- bread\n\nNotes after the list.\n');
  });

  it('deletes the last nested item, leaving its parent', () => {
    expect(edited(groceries, { op: 'delete', handle: handleOf(groceries, 'white') })).toContain('  - [ ] brown\n- bread');
  });

  it('keeps neighbours apart when the block between them goes', () => {
    const body = 'First paragraph.\n\n# Heading\nSecond paragraph.\n';
    expect(edited(body, { op: 'delete', handle: handleOf(body, 'Heading') })).toBe('First paragraph.\n\nSecond paragraph.\n');
  });

  it('refuses a nested item whose parent an earlier edit deleted', () => {
    const result = refused(
      groceries,
      { op: 'delete', handle: handleOf(groceries, 'eggs') },
      { op: 'setChecked', handle: handleOf(groceries, 'brown'), checked: true },
    );
    expect(result.editIndex).toBe(1);
    expect(result.error).toMatch(/deleted by edit 0 .* together with its parent/);
    expect(result.body).toBe(groceries);
  });
});

describe('move', () => {
  it('moves a nested item to the top level, dedenting it', () => {
    expect(edited(groceries, { op: 'move', handle: handleOf(groceries, 'white'), position: 'end' })).toBe(
      '# Groceries\n\n- [ ] milk\n- [x] eggs\n  - [ ] brown\n- bread\n\nNotes after the list.\n\n- [ ] white\n',
    );
  });

  it('moves an item with its nested items under another item', () => {
    const body = edited(groceries, { op: 'move', handle: handleOf(groceries, 'eggs'), position: 'after', target: handleOf(groceries, 'bread') });
    expect(body).toBe('# Groceries\n\n- [ ] milk\n- bread\n- [x] eggs\n  - [ ] brown\n  - [ ] white\n\nNotes after the list.\n');
  });

  it('moves a top-level item into a nested list, indenting it', () => {
    const body = edited(groceries, { op: 'move', handle: handleOf(groceries, 'bread'), position: 'after', target: handleOf(groceries, 'brown') });
    expect(body).toContain('  - [ ] brown\n  - bread\n  - [ ] white\n\nNotes');
  });

  it('leaves an item moved in under the next item nested for the next call as well', () => {
    // Found by a random seed: the parse kept for the next call had the moved item at the top level.
    const body = '- first\n\n- second\n  - third\n  - fourth\n';
    const moved = edited(body, { op: 'move', handle: handleOf(body, 'first'), position: 'before', target: handleOf(body, 'third') });
    expect(moved).toBe('- second\n  - first\n  - third\n  - fourth\n');
    expect(edited(moved, { op: 'insert', position: 'after', handle: handleOf(moved, 'first'), markdown: '- new' })).toBe(
      '- second\n  - first\n  - new\n  - third\n  - fourth\n',
    );
  });

  it('keeps the handles of the moved blocks usable later in the same call', () => {
    const result = applyEdits(groceries, [
      { op: 'move', handle: handleOf(groceries, 'eggs'), position: 'start' },
      { op: 'setChecked', handle: handleOf(groceries, 'white'), checked: true },
    ]);
    expect(result).toMatchObject({ ok: true });
    if (result.ok) expect(result.body.startsWith('- [x] eggs\n  - [ ] brown\n  - [x] white\n\n# Groceries')).toBe(true);
  });

  it('moves a code fence containing Markdown below a table', () => {
    const body = '```md\n- [ ] inside\n```\n\n| a |\n|---|\n| 1 |\n';
    const [fence, table] = readForEditing(body).handles;
    expect(edited(body, { op: 'move', handle: fence!, position: 'after', target: table! })).toBe('| a |\n|---|\n| 1 |\n\n```md\n- [ ] inside\n```\n');
  });

  it.each([
    ['next to one of its own nested items', 'eggs', 'brown', /nested inside it/],
    ['relative to itself', 'eggs', 'eggs', /relative to itself/],
  ])('refuses to move a block %s', (_name, snippet, targetSnippet, message) => {
    const result = refused(groceries, { op: 'move', handle: handleOf(groceries, snippet), position: 'after', target: handleOf(groceries, targetSnippet) });
    expect(result.error).toMatch(message);
  });
});

describe('replaceText', () => {
  it('replaces text inside a table cell', () => {
    const body = '| a | b |\n|---|---|\n| 1 | 2 |\n';
    const handle = readForEditing(body).handles[0]!;
    expect(edited(body, { op: 'replaceText', handle, find: '| 2 |', replace: '| 3 |' })).toBe('| a | b |\n|---|---|\n| 1 | 3 |\n');
  });

  it('replaces text inside a fence without touching the Markdown around it', () => {
    const body = 'Before\n\n```md\n# inside\n```\n\nAfter\n';
    expect(edited(body, { op: 'replaceText', handle: handleOf(body, '```md'), find: '# inside', replace: '## inside' })).toBe(
      'Before\n\n```md\n## inside\n```\n\nAfter\n',
    );
  });

  it('matches a multi-line find written with \\n in a CRLF body', () => {
    const body = 'one\r\ntwo\r\n\r\nthree\r\n';
    expect(edited(body, { op: 'replaceText', handle: handleOf(body, 'one'), find: 'one\ntwo', replace: 'uno\ndos' })).toBe('uno\r\ndos\r\n\r\nthree\r\n');
  });

  it.each([
    ['does not occur', 'lemon', /does not occur/],
    ['occurs twice', 'e', /occurs \d+ times/],
  ])('refuses a find that %s in the block', (_name, find, message) => {
    const result = refused(groceries, { op: 'replaceText', handle: handleOf(groceries, 'Notes'), find, replace: 'x' });
    expect(result.error).toMatch(message);
    expect(result.body).toBe(groceries);
  });

  it('lets later edits in the same call use the changed block', () => {
    const handle = handleOf(groceries, 'milk');
    const body = edited(groceries, { op: 'replaceText', handle, find: 'milk', replace: 'oat milk' }, { op: 'setChecked', handle, checked: true });
    expect(body).toContain('- [x] oat milk\n');
  });
});
