/**
 * A parsed body's block structure as compact JSON, so a process that has not parsed a body
 * (another server process, or this one after a restart) can load it instead of parsing:
 * micromark costs seconds per megabyte, loading an outline milliseconds. The outline holds
 * offsets only; the text stays the item's body, and an outline is used only with the exact
 * text it was made from (the caller checks a full SHA-256).
 */
import type { Block, BlockKind, ParsedBody, Unit } from './blocks.js';

const KINDS: readonly BlockKind[] = [
  'heading',
  'paragraph',
  'image',
  'listItem',
  'code',
  'blockquote',
  'table',
  'thematicBreak',
  'html',
  'definition',
  'footnoteDefinition',
  'other',
];
const KIND_INDEX = new Map(KINDS.map((k, i) => [k, i]));

/** [kind, start, end, depth, endsInHtml (0/1), then for list items: ordered (0/1), marker, checkbox]. */
type BlockRow = [number, number, number, number, number] | [number, number, number, number, number, number, string, number];
/**
 * Raised whenever parsing would cut the same text into other blocks, so outlines stored by an
 * earlier version are parsed again. 2: a setext heading after link definitions starts at its
 * own text, not at the first definition.
 */
const OUTLINE_VERSION = 2;

interface OutlineJson {
  v: typeof OUTLINE_VERSION;
  /** Where the first unit starts; each next unit starts where the one before ends. */
  start: number;
  units: [number, BlockRow[]][];
}

/** The outline of a parsed body, as a JSON string. */
export function toOutline(parsed: ParsedBody): string {
  const units = parsed.units.map((unit): [number, BlockRow[]] => [
    unit.length,
    unit.blocks.map((b): BlockRow => {
      const head: [number, number, number, number, number] = [KIND_INDEX.get(b.kind)!, b.start, b.end, b.depth, b.endsInHtml ? 1 : 0];
      return b.item ? [...head, b.item.ordered ? 1 : 0, b.item.marker, b.item.checkbox] : head;
    }),
  ]);
  const outline: OutlineJson = { v: OUTLINE_VERSION, start: parsed.starts[0] ?? 0, units };
  return JSON.stringify(outline);
}

/** The parsed body of `text` from its outline, or null when the outline does not fit the text. */
export function fromOutline(text: string, json: string): ParsedBody | null {
  let outline: OutlineJson;
  try {
    outline = JSON.parse(json) as OutlineJson;
  } catch {
    return null;
  }
  if (outline?.v !== OUTLINE_VERSION || !Array.isArray(outline.units)) return null;
  const units: Unit[] = [];
  const starts: number[] = [];
  let at = outline.start;
  let blockCount = 0;
  for (const [length, rows] of outline.units) {
    // A loop and one object literal a block (no spread): a long body has tens of thousands of blocks,
    // rebuilt on the thread requests wait for, and this is faster on its first run (bench/README.md).
    const blocks = new Array<Block>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      const block: { -readonly [K in keyof Block]: Block[K] } = {
        kind: KINDS[r[0]] ?? 'other',
        start: r[1],
        end: r[2],
        depth: r[3],
        item: r.length > 5 ? { ordered: r[5] === 1, marker: r[6]!, checkbox: r[7]! } : null,
      };
      if (r[4] === 1) block.endsInHtml = true;
      blocks[i] = block;
    }
    units.push({ length, blocks });
    starts.push(at);
    at += length;
    blockCount += blocks.length;
  }
  // Units tile the text to its end; anything else is an outline of some other text.
  if (units.length > 0 && at !== text.length) return null;
  return { text, units, starts, blockCount };
}
