import fc from 'fast-check';

/**
 * Random Markdown documents whose blocks are known by construction, so tests
 * can check the parser's blocks and the edit engine against them.
 */

export interface SpecItem {
  readonly marker: string;
  /** Offset of "[" from the block start, -1 for a plain item. */
  readonly checkbox: number;
}

export interface SpecBlock {
  /** Own text with "\n" line endings; continuation lines carry their absolute indentation. */
  text: string;
  /** Text between the previous block (or the start) and this one. */
  gap: string;
  depth: number;
  col: number;
  item: SpecItem | null;
}

export interface SpecDoc {
  blocks: SpecBlock[];
  /** Text after the last block (the whole text when there are no blocks). */
  tail: string;
}

const WORDS = ['alpha', 'beta', 'gamma', 'milk', 'eggs', 'bread', 'tea', 'plan', 'todo', 'done'];

export const word = fc.constantFrom(...WORDS);
export const words = fc.array(word, { minLength: 1, maxLength: 3 }).map((ws) => ws.join(' '));

function single(text: string): SpecBlock[] {
  return [{ text, gap: '', depth: 0, col: 0, item: null }];
}

const heading = fc.tuple(fc.integer({ min: 1, max: 3 }), words).map(([n, w]) => single(`${'#'.repeat(n)} ${w}`));
const paragraph = fc.tuple(words, fc.option(words, { freq: 3 })).map(([a, b]) => single(b === null ? a : `${a}\n${b}`));
const fencedMarkdown = fc.tuple(fc.constantFrom('```', '~~~'), words, words).map(([fence, a, b]) => single(`${fence}md\n# ${a}\n- [ ] ${b}\n\n${fence}`));
const table = fc.tuple(word, word, word, word).map(([a, b, c, d]) => single(`| ${a} | ${b} |\n|---|---|\n| ${c} | ${d} |`));
const quote = fc.tuple(words, words).map(([a, b]) => single(`> ${a}\n> - ${b}`));
const rule = fc.constant(single('***'));
const image = word.map((w) => single(`![${w}](${w}.png)`));
const html = words.map((w) => single(`<div>\n${w}\n</div>`));

const itemSpec = fc.record({
  deeper: fc.integer({ min: -2, max: 1 }),
  task: fc.boolean(),
  checked: fc.boolean(),
  text: words,
  more: fc.option(words, { freq: 4 }),
});

/** A list of 1–4 items nested up to two levels, with or without task checkboxes. */
export function listOf(bullet: fc.Arbitrary<string>): fc.Arbitrary<SpecBlock[]> {
  return fc.tuple(bullet, fc.array(itemSpec, { minLength: 1, maxLength: 4 })).map(([marker, specs]) => {
    const blocks: SpecBlock[] = [];
    let depth = 0;
    specs.forEach((spec, k) => {
      depth = k === 0 ? 0 : Math.max(0, Math.min(depth + spec.deeper, depth + 1, 2));
      const col = depth * 2;
      const box = spec.task ? `[${spec.checked ? 'x' : ' '}] ` : '';
      const more = spec.more === null ? '' : `\n${' '.repeat(col + 2)}${spec.more}`;
      blocks.push({
        text: `${marker} ${box}${spec.text}${more}`,
        gap: k === 0 ? '' : `\n${' '.repeat(col)}`,
        depth,
        col,
        item: { marker, checkbox: spec.task ? marker.length + 1 : -1 },
      });
    });
    return blocks;
  });
}

export const list = listOf(fc.constant('-'));
const nonListUnit = fc.oneof(heading, paragraph, fencedMarkdown, table, quote, rule, image, html);
const unit = fc.oneof({ arbitrary: nonListUnit, weight: 3 }, { arbitrary: list, weight: 2 });

function join(units: SpecBlock[][], gap0: string, tail: string): SpecDoc {
  const blocks: SpecBlock[] = [];
  units.forEach((u, k) => {
    u.forEach((block, j) => blocks.push({ ...block, gap: j > 0 ? block.gap : k === 0 ? gap0 : '\n\n' }));
  });
  return blocks.length === 0 ? { blocks, tail: gap0 + tail } : { blocks, tail };
}

/** A document of up to `max` top-level units (lists count as one). */
export function document(max = 8): fc.Arbitrary<SpecDoc> {
  return fc
    .tuple(fc.array(unit, { minLength: 0, maxLength: max }), fc.constantFrom('', '\n'), fc.constantFrom('', '\n', '\n\n'))
    .map(([units, gap0, tail]) => join(units, gap0, tail));
}

/** The document's text with the given line ending. */
export function render(doc: SpecDoc, eol: string): string {
  let text = '';
  for (const block of doc.blocks) text += block.gap + block.text;
  text += doc.tail;
  return eol === '\n' ? text : text.replace(/\n/g, eol);
}

export interface SpecFragment {
  /** What the edit sends. */
  markdown: string;
  /** Its blocks once normalised: top level at column 0, "\n" line endings. */
  blocks: SpecBlock[];
}

/** Markdown an edit brings: non-list blocks, or list items with any bullet; sometimes indented or carrying a stray handle. */
export const fragment: fc.Arbitrary<SpecFragment> = fc
  .tuple(
    fc.oneof(
      fc.array(nonListUnit, { minLength: 1, maxLength: 2 }),
      listOf(fc.constantFrom('-', '*', '+')).map((items) => [items]),
    ),
    fc.constantFrom('', '', '  '),
    fc.constantFrom('', '', '\u27e6ab2\u27e7 '),
  )
  .map(([units, indent, handle]) => {
    const doc = join(units, '', '');
    const markdown =
      handle +
      render(doc, '\n')
        .split('\n')
        .map((line) => (line === '' ? line : indent + line))
        .join('\n');
    return { markdown, blocks: doc.blocks };
  });
