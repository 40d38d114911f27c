import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { parseBody, placedBlocks, type ParsedBody } from '../../../src/domain/body/blocks.js';
import { reparseBody, type Segment } from '../../../src/domain/body/reparse.js';

const RUNS = Number(process.env.BODY_PROPERTY_RUNS ?? 150);

/** Lines chosen to interact with their neighbours: setext underlines, table heads, lazy lines, fences, HTML, definitions. */
const line = fc.constantFrom(
  'para text',
  'lazy continuation',
  '===',
  '---',
  '| a | b |',
  '|---|---|',
  '```',
  '~~~md',
  '- item',
  '  - nested item',
  '- [ ] task',
  '1. one',
  '2) two',
  '    indented code',
  '> quote',
  '> # quoted heading',
  '> | a |',
  '> |---|',
  '<div>',
  '</div>',
  '<!-- open',
  'close -->',
  '[ref]: /url',
  "'title'",
  '# heading',
  '* * *',
  '\t- tabbed',
  '',
  '',
);

const text = fc.tuple(fc.array(line, { maxLength: 40 }), fc.constantFrom('\n', '\r\n')).map(([lines, eol]) => lines.join(eol) + (lines.length > 0 ? eol : ''));

const splice = fc.record({
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  /** Most edits start at a line start, where block boundaries are. */
  atLineStart: fc.boolean(),
  remove: fc.nat({ max: 30 }),
  /** Whole lines, sometimes followed by the start of a line, so that old text continues mid-line (as a moved block does). */
  insert: fc
    .tuple(fc.array(line, { maxLength: 3 }), fc.constantFrom('', '', '', '  ', '    ', 'x ', '> '))
    .map(([lines, partial]) => lines.map((l) => `${l}\n`).join('') + partial),
});

function summary(parsed: ParsedBody): string[] {
  return placedBlocks(parsed).map((p) => `${p.block.kind}|${p.start}|${p.end}|${p.block.depth}|${JSON.stringify(p.block.item)}`);
}

/** Apply non-overlapping splices (positions as fractions of the text) and describe the result as segments. */
function applySplices(old: string, splices: { at: number; atLineStart?: boolean; remove: number; insert: string }[]): { text: string; segments: Segment[] } {
  const lineStart = (pos: number): number => old.lastIndexOf('\n', pos - 1) + 1;
  const cuts = splices
    .map((s) => {
      const at = Math.floor(s.at * old.length);
      return { start: s.atLineStart ? lineStart(at) : at, remove: s.remove, insert: s.insert };
    })
    .sort((a, b) => a.start - b.start);
  const segments: Segment[] = [];
  let out = '';
  let oldPos = 0;
  for (const cut of cuts) {
    const start = Math.max(cut.start, oldPos);
    const end = Math.min(start + cut.remove, old.length);
    if (start > oldPos) {
      segments.push({ start: out.length, end: out.length + start - oldPos, from: oldPos });
      out += old.slice(oldPos, start);
    }
    if (cut.insert) {
      segments.push({ start: out.length, end: out.length + cut.insert.length, from: -1 });
      out += cut.insert;
    }
    oldPos = end;
  }
  if (oldPos < old.length) {
    segments.push({ start: out.length, end: out.length + old.length - oldPos, from: oldPos });
    out += old.slice(oldPos);
  }
  return { text: out, segments };
}

describe('incremental re-parsing', () => {
  it('gives the same blocks as parsing the edited text from scratch, whatever the splices', () => {
    fc.assert(
      fc.property(text, fc.array(splice, { minLength: 1, maxLength: 3 }), fc.constantFrom(16, 64, 8192), (old, splices, window) => {
        const { text: edited, segments } = applySplices(old, splices);
        const incremental = reparseBody(parseBody(old, window), edited, segments, { windowSize: window });
        expect(summary(incremental)).toEqual(summary(parseBody(edited, 1 << 30)));
        expect(incremental.units.reduce((sum, unit) => sum + unit.length, 0)).toBe(edited.length);
      }),
      { numRuns: RUNS * 3 },
    );
  });

  it('parses in windows exactly as in one piece, even where lines interact', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 4, max: 80 }), (body, window) => {
        expect(summary(parseBody(body, window))).toEqual(summary(parseBody(body, 1 << 30)));
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it.each([
    ['an item absorbs a lazy line that replaced a heading', '- a\n# h\n\nafter\n', '# h', 'lazy'],
    ['a paragraph absorbs a line that replaced a heading', 'para\n# h\n\nafter\n', '# h', 'more'],
    ['an underline turns the paragraph above into a heading', 'intro\n\ntext\n\nafter\n', 'text\n', 'text\n===\n'],
    ['a list may start once indented code above is gone', '    code\n\n2) two\n\nafter\n', '    code', 'para'],
    ['indented code above stops a list from starting', 'para\n\n2) two\n\nafter\n', 'para', '    code'],
    ['a definition takes a title from the next line', '[r]: /u\n\npara\n', '\n\npara', "\n'title'\n\npara"],
    ['a delimiter row turns a paragraph into a table', '| a |\n\ntext\n', '| a |\n', '| a |\n|---|\n'],
    ['an opened fence swallows what follows', '```\ncode\n```\n\npara\n\n# h\n', '```\n\npara', '\n\npara'],
    ['a closed fence releases what follows', '```\ncode\n\npara\n\n# h\n', 'code\n', 'code\n```\n'],
    ['a nested item moves out to the top level', '- a\n  - b\n- c\n', '  - b', '- b'],
    // Found by a random seed: a top-level item moved in under another item becomes nested.
    ['a top-level item is indented under the item before', '- a\n\n- b\n- c\n', '\n\n', '\n  '],
    ['a top-level item continues a line', '- a\n- b\n', '\n', '\nx '],
    // micromark cuts indented code into one-line blocks right after a quote, and reads no table there.
    ['indented code follows a quote directly', '> # q\n\n    a\n    b\n', '\n\n', '\n'],
    ['a table follows a quoted table directly', '> | a |\n> |---|\n\n| b |\n|---|\n', '|---|\n\n', '|---|\n'],
    ['a table follows an item holding a table directly', '- | a |\n  |---|\n\n| b |\n|---|\n', '  |---|\n\n', '  |---|\n'],
  ])('re-parses correctly when %s', (_name, old, find, replacement) => {
    const at = old.indexOf(find);
    expect(at).toBeGreaterThanOrEqual(0);
    const edited = old.slice(0, at) + replacement + old.slice(at + find.length);
    const segments: Segment[] = [
      { start: 0, end: at, from: 0 },
      { start: at, end: at + replacement.length, from: -1 },
      { start: at + replacement.length, end: edited.length, from: at + find.length },
    ].filter((seg) => seg.end > seg.start);
    for (const window of [4, 8192]) {
      const incremental = reparseBody(parseBody(old, window), edited, segments, { windowSize: window });
      expect(summary(incremental)).toEqual(summary(parseBody(edited, 1 << 30)));
    }
  });

  it('reuses the unit objects of unchanged stretches instead of re-parsing them', () => {
    const body = Array.from({ length: 200 }, (_, i) => `Paragraph ${i}.\n`).join('\n');
    const old = parseBody(body);
    const at = body.indexOf('Paragraph 100.');
    const { text: edited, segments } = applySplices(body, [{ at: at / body.length, remove: 0, insert: 'New paragraph.\n\n' }]);
    const incremental = reparseBody(old, edited, segments);
    const reused = incremental.units.filter((unit) => old.units.includes(unit)).length;
    expect(reused).toBeGreaterThanOrEqual(old.units.length - 2);
    expect(summary(incremental)).toEqual(summary(parseBody(edited)));
  });
});
