import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { parseBody, placedBlocks, type ParsedBody } from '../../../src/domain/body/blocks.js';
import { parsedBody } from '../../../src/domain/body/cache.js';
import { blockHash, handleCandidate } from '../../../src/domain/body/handles.js';
import { applyEdits, bodyVersion, readForEditing, stripHandles, type BodyEdit } from '../../../src/domain/body/index.js';
import { document, fragment, render, word, type SpecBlock, type SpecDoc, type SpecFragment } from './support/gen.js';
import { modelApply } from './support/model.js';

const RUNS = Number(process.env.BODY_PROPERTY_RUNS ?? 150);
const eol = fc.constantFrom('\n', '\r\n');

/** Blocks as the parser sees them: kind, own text, depth, item marker and checkbox. */
function blockSummary(parsed: ParsedBody): string[] {
  return placedBlocks(parsed).map((p) => `${p.block.kind}|${p.block.depth}|${JSON.stringify(p.block.item)}|${parsed.text.slice(p.start, p.end)}`);
}

function ownTexts(text: string): string[] {
  const parsed = parseBody(text);
  return placedBlocks(parsed).map((p) => text.slice(p.start, p.end));
}

describe('reading for editing', () => {
  it('finds exactly the generated blocks, with their text, depth and checkbox', () => {
    fc.assert(
      fc.property(document(), eol, (doc, lineEnding) => {
        const text = render(doc, lineEnding);
        const parsed = parseBody(text);
        const found = placedBlocks(parsed);
        expect(found.map((p) => text.slice(p.start, p.end))).toEqual(doc.blocks.map((b) => b.text.replace(/\n/g, lineEnding)));
        expect(found.map((p) => p.block.depth)).toEqual(doc.blocks.map((b) => b.depth));
        expect(found.map((p) => p.block.item?.checkbox ?? null)).toEqual(doc.blocks.map((b) => b.item?.checkbox ?? null));
      }),
      { numRuns: RUNS },
    );
  });

  it('round-trips: stripping the handles gives back the body byte for byte', () => {
    fc.assert(
      fc.property(document(), eol, (doc, lineEnding) => {
        const text = render(doc, lineEnding);
        const editable = readForEditing(text);
        expect(stripHandles(editable.text)).toBe(text);
        expect(editable.handles).toHaveLength(doc.blocks.length);
      }),
      { numRuns: RUNS },
    );
  });

  it('round-trips bodies that themselves contain handle-like text', () => {
    const piece = fc.constantFrom('\u27e6', '\u27e7', 'ab2', 'k3f9', ' ', '\n', '\r\n', '- ', '# ', '> ', 'x', '\u27e6\u27e7', '\u27e6ab2\u27e7 ');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 30 }).map((parts) => parts.join('')),
        (text) => {
          expect(stripHandles(readForEditing(text).text)).toBe(text);
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('parses in small windows exactly as in one piece', () => {
    fc.assert(
      fc.property(document(12), eol, fc.integer({ min: 1, max: 64 }), (doc, lineEnding, window) => {
        const text = render(doc, lineEnding);
        expect(blockSummary(parseBody(text, window))).toEqual(blockSummary(parseBody(text, 1 << 30)));
      }),
      { numRuns: RUNS },
    );
  });

  it('gives every block a distinct 3-4 character handle mixing letters and digits', () => {
    fc.assert(
      fc.property(document(), (doc) => {
        const { handles } = readForEditing(render(doc, '\n'));
        expect(new Set(handles).size).toBe(handles.length);
        for (const handle of handles) {
          expect(handle).toMatch(/^[a-hj-km-np-z2-9]{3,4}$/);
          expect(handle).toMatch(/[a-z]/);
          expect(handle).toMatch(/[2-9]/);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

type EditSpec =
  | { op: 'replace'; b: number; frag: SpecFragment }
  | { op: 'insertAt'; position: 'before' | 'after'; b: number; frag: SpecFragment }
  | { op: 'insertEnd'; position: 'start' | 'end'; frag: SpecFragment }
  | { op: 'delete'; b: number }
  | { op: 'setChecked'; b: number; checked: boolean }
  | { op: 'moveTo'; b: number; position: 'before' | 'after'; t: number }
  | { op: 'moveEnd'; b: number; position: 'start' | 'end' }
  | { op: 'replaceText'; b: number; find: string; replace: string }
  | { op: 'stale'; b: number }
  | { op: 'rewrite'; current: boolean; doc: SpecDoc };

const index = fc.nat({ max: 40 });
const editSpec: fc.Arbitrary<EditSpec> = fc.oneof(
  fc.record({ op: fc.constant('replace' as const), b: index, frag: fragment }),
  fc.record({ op: fc.constant('insertAt' as const), position: fc.constantFrom('before' as const, 'after' as const), b: index, frag: fragment }),
  fc.record({ op: fc.constant('insertEnd' as const), position: fc.constantFrom('start' as const, 'end' as const), frag: fragment }),
  fc.record({ op: fc.constant('delete' as const), b: index }),
  fc.record({ op: fc.constant('setChecked' as const), b: index, checked: fc.boolean() }),
  fc.record({ op: fc.constant('moveTo' as const), b: index, position: fc.constantFrom('before' as const, 'after' as const), t: index }),
  fc.record({ op: fc.constant('moveEnd' as const), b: index, position: fc.constantFrom('start' as const, 'end' as const) }),
  fc.record({ op: fc.constant('replaceText' as const), b: index, find: word, replace: word }),
  { arbitrary: fc.record({ op: fc.constant('stale' as const), b: index }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('rewrite' as const), current: fc.boolean(), doc: document(3) }), weight: 1 },
);

/** Turn specs into edits against a body's handles; fragments and rewrites are recorded for the model. */
function toEdits(
  specs: readonly EditSpec[],
  handles: readonly string[],
  version: string,
  fragments: Map<string, SpecBlock[]>,
  rewrites: Map<string, SpecDoc>,
): BodyEdit[] {
  const h = (b: number): string => (handles.length === 0 ? 'zz99' : handles[b % handles.length]!);
  const frag = (f: SpecFragment): string => {
    fragments.set(f.markdown, f.blocks);
    return f.markdown;
  };
  return specs.map((s): BodyEdit => {
    switch (s.op) {
      case 'replace':
        return { op: 'replace', handle: h(s.b), markdown: frag(s.frag) };
      case 'insertAt':
        return { op: 'insert', position: s.position, handle: h(s.b), markdown: frag(s.frag) };
      case 'insertEnd':
        return { op: 'insert', position: s.position, markdown: frag(s.frag) };
      case 'delete':
        return { op: 'delete', handle: h(s.b) };
      case 'setChecked':
        return { op: 'setChecked', handle: h(s.b), checked: s.checked };
      case 'moveTo':
        return { op: 'move', handle: h(s.b), position: s.position, target: h(s.t) };
      case 'moveEnd':
        return { op: 'move', handle: h(s.b), position: s.position };
      case 'replaceText':
        return { op: 'replaceText', handle: h(s.b), find: s.find, replace: s.replace };
      case 'stale':
        return { op: 'delete', handle: staleHandle(handles, s.b) };
      case 'rewrite': {
        const markdown = render(s.doc, '\n');
        rewrites.set(markdown, s.doc);
        return { op: 'rewrite', baseVersion: s.current ? version : 'v000000000000', markdown };
      }
    }
  });
}

function staleHandle(handles: readonly string[], seed: number): string {
  for (let k = seed; ; k++) {
    const candidate = `q${(k % 8) + 2}${'abcdefghjk'[k % 10]}${(k % 7) + 2}`;
    if (!handles.includes(candidate)) return candidate;
  }
}

describe('applying edits', () => {
  it('matches the reference model, keeps blocks separate and refuses exactly when the model does', () => {
    fc.assert(
      fc.property(document(), eol, fc.array(editSpec, { minLength: 1, maxLength: 5 }), (doc, lineEnding, specs) => {
        const text = render(doc, lineEnding);
        const editable = readForEditing(text);
        const fragments = new Map<string, SpecBlock[]>();
        const rewrites = new Map<string, SpecDoc>();
        const edits = toEdits(specs, editable.handles, editable.version, fragments, rewrites);
        const result = applyEdits(text, edits);
        const expected = modelApply(doc, lineEnding, editable.handles, edits, fragments, rewrites);
        if (!expected.ok) {
          expect(result).toMatchObject({ ok: false, editIndex: expected.editIndex, body: text, version: editable.version });
          if (!result.ok) expect(result.editable).toEqual(editable);
          return;
        }
        if (!result.ok) throw new Error(`refused: ${result.error} (edit ${result.editIndex})`);
        expect(result.body).toBe(expected.text);
        expect(result.version).toBe(bodyVersion(expected.text));
        // The edited body parses into exactly the model's blocks: nothing merged, nothing split.
        expect(ownTexts(result.body)).toEqual(expected.blocks.map((b) => b.text));
      }),
      {
        numRuns: RUNS * 2,
        // Found by a CI run: an item with a nested item replaced by an HTML block ("- <div>…"), which
        // needs a blank line before the nested item (the model missed the bullet before "<div>").
        examples: [
          [
            {
              blocks: [
                { text: '- alpha', gap: '', depth: 0, col: 0, item: { marker: '-', checkbox: -1 } },
                { text: '- alpha', gap: '\n  ', depth: 1, col: 2, item: { marker: '-', checkbox: -1 } },
              ],
              tail: '',
            },
            '\n',
            [
              {
                op: 'replace',
                b: 0,
                frag: { markdown: '<div>\nalpha\n</div>', blocks: [{ text: '<div>\nalpha\n</div>', gap: '', depth: 0, col: 0, item: null }] },
              },
            ],
          ] as never,
          // And one where the HTML block is not the last of the replacement: no blank line is due.
          [
            {
              blocks: [
                { text: '- alpha', gap: '', depth: 0, col: 0, item: { marker: '-', checkbox: -1 } },
                { text: '- alpha', gap: '\n  ', depth: 1, col: 2, item: { marker: '-', checkbox: -1 } },
              ],
              tail: '',
            },
            '\n',
            [
              {
                op: 'replace',
                b: 0,
                frag: {
                  markdown: '<div>\nalpha\n</div>\n\nalpha',
                  blocks: [
                    { text: '<div>\nalpha\n</div>', gap: '', depth: 0, col: 0, item: null },
                    { text: 'alpha', gap: '\n\n', depth: 0, col: 0, item: null },
                  ],
                },
              },
            ],
          ] as never,
        ],
      },
    );
  });

  it('leaves the parse it caches for the new body equal to a parse from scratch', () => {
    fc.assert(
      fc.property(document(12), eol, fc.array(editSpec, { minLength: 1, maxLength: 6 }), (doc, lineEnding, specs) => {
        const text = render(doc, lineEnding);
        const editable = readForEditing(text);
        const result = applyEdits(text, toEdits(specs, editable.handles, editable.version, new Map(), new Map()));
        if (!result.ok) return;
        const cached = parsedBody(result.body);
        const fresh = parseBody(result.body, 1 << 30);
        expect(blockSummary(cached)).toEqual(blockSummary(fresh));
        expect(cached.starts.length).toBe(cached.units.length);
        expect(cached.units.reduce((sum, unit) => sum + unit.length, 0)).toBe(result.body.length);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('keeps the handles and bytes of blocks no edit touched', () => {
    fc.assert(
      fc.property(document(), eol, fc.array(editSpec, { minLength: 1, maxLength: 4 }), (doc, lineEnding, specs) => {
        const text = render(doc, lineEnding);
        const before = readForEditing(text);
        const fragments = new Map<string, SpecBlock[]>();
        const rewrites = new Map<string, SpecDoc>();
        const edits = toEdits(specs, before.handles, before.version, fragments, rewrites);
        const result = applyEdits(text, edits);
        const expected = modelApply(doc, lineEnding, before.handles, edits, fragments, rewrites);
        if (!result.ok || !expected.ok) return;
        const after = readForEditing(result.body);
        const texts = ownTexts(result.body);
        const wanted = levelZeroCandidates(result.body);
        expected.blocks.forEach((block, k) => {
          if (block.changed || block.handle === null) return;
          const i = before.handles.indexOf(block.handle);
          expect(texts[k]).toBe(doc.blocks[i]!.text.replace(/\n/g, lineEnding));
          // A handle only moves when identical blocks were reordered or another block now wants the same handle.
          const sameOccurrence = occurrence(text, i) === occurrence(result.body, k);
          const contested = wanted.filter((c) => c === wanted[k]).length > 1 || wanted[k] !== block.handle;
          if (sameOccurrence && !contested) expect(after.handles[k]).toBe(block.handle);
          // Whatever happens, an old handle never names a block with different text.
          const j = after.handles.indexOf(block.handle);
          if (j !== -1) expect(texts[j]).toBe(texts[k]);
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses a rewrite against any version but the current one, leaving the body as it was', () => {
    fc.assert(
      fc.property(document(), eol, fc.string({ minLength: 1, maxLength: 14 }), fc.array(editSpec, { maxLength: 2 }), (doc, lineEnding, stale, before) => {
        const text = render(doc, lineEnding);
        const editable = readForEditing(text);
        fc.pre(stale !== editable.version);
        const earlier = toEdits(before, editable.handles, editable.version, new Map(), new Map()).filter((e) => e.op !== 'rewrite');
        const result = applyEdits(text, [...earlier, { op: 'rewrite', baseVersion: stale, markdown: '# replaced\n' }]);
        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.body).toBe(text);
        expect(result.version).toBe(editable.version);
        expect(result.editable.text).toBe(editable.text);
        expect(result.editIndex).toBeLessThanOrEqual(earlier.length);
      }),
      { numRuns: RUNS },
    );
  });
});

/** Lines that interact with their neighbours, for bodies nobody generated block by block. */
const awkwardLine = fc.constantFrom(
  'para text',
  '===',
  '---',
  '| a | b |',
  '|---|---|',
  '```',
  '- item',
  '  - nested',
  '\t- tabbed',
  '- [ ] task',
  '  - [x] nested task',
  '2. two',
  '    indented code',
  '> quote',
  '<div>',
  '[ref]: /url',
  '# heading',
  '',
  '',
);
const awkwardBody = fc
  .tuple(fc.array(awkwardLine, { maxLength: 25 }), fc.constantFrom('\n', '\r\n'))
  .map(([lines, lineEnding]) => lines.join(lineEnding) + lineEnding);

describe('applying edits to arbitrary Markdown', () => {
  it('never fails inside, keeps the round trip, and caches an exact parse of what it wrote', () => {
    fc.assert(
      fc.property(awkwardBody, fc.array(editSpec, { minLength: 1, maxLength: 4 }), (text, specs) => {
        const editable = readForEditing(text);
        const result = applyEdits(text, toEdits(specs, editable.handles, editable.version, new Map(), new Map()));
        if (!result.ok) {
          expect(result.body).toBe(text);
          return;
        }
        expect(blockSummary(parsedBody(result.body))).toEqual(blockSummary(parseBody(result.body, 1 << 30)));
        expect(stripHandles(readForEditing(result.body).text)).toBe(result.body);
      }),
      { numRuns: RUNS },
    );
  });
});

/** Each block's handle candidate at level 0, as the handle code derives it (occurrence-aware). */
function levelZeroCandidates(body: string): string[] {
  const placed = placedBlocks(parseBody(body));
  const seen = new Map<number, number>();
  const length = placed.length > 1000 ? 4 : 3;
  return placed.map((p) => {
    const hash = blockHash(body, p.start, p.end);
    const occ = seen.get(hash) ?? 0;
    seen.set(hash, occ + 1);
    return handleCandidate(hash, occ, 0, length);
  });
}

/** How many earlier blocks have the same text at the same indentation. */
function occurrence(body: string, k: number): number {
  const placed = placedBlocks(parseBody(body));
  const key = (i: number): number => blockHash(body, placed[i]!.start, placed[i]!.end);
  return placed.slice(0, k).filter((_, i) => key(i) === key(k)).length;
}
