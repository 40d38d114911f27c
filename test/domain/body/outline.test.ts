import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { parseBody, placedBlocks, type ParsedBody } from '../../../src/domain/body/blocks.js';
import { fromOutline, toOutline } from '../../../src/domain/body/outline.js';
import { editableOf, readForEditing } from '../../../src/domain/body/read.js';
import { clearParsedBodies } from '../../../src/domain/body/cache.js';

const RUNS = Number(process.env.BODY_PROPERTY_RUNS ?? 150);

const line = fc.constantFrom(
  'para text',
  '===',
  '---',
  '| a | b |',
  '|---|---|',
  '```',
  '- item',
  '  - nested item',
  '- [ ] task',
  '  - [x] done',
  '1. one',
  '2) two',
  '> quote',
  '<div>',
  '[ref]: /url',
  '# heading',
  '![pic](a.png)',
  '[^1]: note',
  '',
);
const text = fc
  .tuple(fc.constantFrom('', '\n\n'), fc.array(line, { maxLength: 40 }), fc.constantFrom('\n', '\r\n'))
  .map(([lead, lines, eol]) => lead + lines.join(eol) + (lines.length > 0 ? eol : ''));

const summary = (parsed: ParsedBody) => ({
  starts: parsed.starts,
  lengths: parsed.units.map((u) => u.length),
  blocks: placedBlocks(parsed).map((p) => ({
    kind: p.block.kind,
    start: p.start,
    end: p.end,
    depth: p.block.depth,
    item: p.block.item,
    html: p.block.endsInHtml ?? false,
  })),
});

describe('block outlines', () => {
  it('load back to exactly the parse they were made from, and give the same handles', () => {
    fc.assert(
      fc.property(text, fc.constantFrom(16, 4096), (body, window) => {
        const parsed = parseBody(body, window);
        const loaded = fromOutline(body, toOutline(parsed))!;
        expect(loaded).not.toBeNull();
        expect(summary(loaded)).toEqual(summary(parsed));
        expect(loaded.blockCount).toBe(parsed.blockCount);
        expect(editableOf(loaded, 'v').text).toBe(editableOf(parseBody(body, window), 'v').text);
      }),
      { numRuns: RUNS },
    );
  });

  it('refuse a text the outline was not made from, and malformed JSON', () => {
    const outline = toOutline(parseBody('# a\n\ntext\n'));
    expect(fromOutline('# a\n\ntext\nmore\n', outline)).toBeNull();
    expect(fromOutline('# a\n\ntext\n', '{not json')).toBeNull();
    expect(fromOutline('# a\n\ntext\n', '{"v":99,"units":[]}')).toBeNull();
  });

  it('refuse an outline stored by a version that cut blocks differently', () => {
    const body = '# a\n\ntext\n';
    const outline = JSON.parse(toOutline(parseBody(body))) as { v: number };
    expect(fromOutline(body, JSON.stringify(outline))).not.toBeNull();
    expect(fromOutline(body, JSON.stringify({ ...outline, v: outline.v - 1 }))).toBeNull();
  });

  it('make a read of a parsed-elsewhere body match a fresh read', () => {
    const body = '# Groceries\n\n- [ ] milk\n- [x] eggs\n  - [ ] brown\n\n```md\n# not a heading\n```\n';
    const fresh = readForEditing(body).text;
    const outline = toOutline(parseBody(body));
    clearParsedBodies();
    expect(editableOf(fromOutline(body, outline)!, 'v').text).toBe(fresh);
  });
});
