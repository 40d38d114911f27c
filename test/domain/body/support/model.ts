import { createHash } from 'node:crypto';
import type { BodyEdit } from '../../../../src/domain/body/index.js';
import type { SpecBlock, SpecDoc, SpecItem } from './gen.js';

/**
 * Reference model of applyEdits: the documented rules applied to a plain
 * array of blocks whose structure is known from the generator, with no
 * parsing, caching or incremental tricks. Only bullet lists ("-", "*", "+").
 */

export interface ModelBlock extends SpecBlock {
  readonly id: number;
  readonly handle: string | null;
  gone: boolean;
  /** An edit changed this block's text or moved it. */
  changed: boolean;
}

export type ModelResult = { ok: true; text: string; blocks: ModelBlock[] } | { ok: false; editIndex: number };

interface State {
  blocks: ModelBlock[];
  tail: string;
  readonly eol: string;
  rewritten: boolean;
  nextId: number;
}

class Refused extends Error {}

/**
 * Apply edits to a generated document. `handles` are the handles read for it
 * (block i ↔ handles[i]); `fragments` gives the blocks of each markdown string
 * an edit may carry; `rewrites` the documents a rewrite's markdown stands for.
 */
export function modelApply(
  doc: SpecDoc,
  eol: string,
  handles: readonly string[],
  edits: readonly BodyEdit[],
  fragments: ReadonlyMap<string, SpecBlock[]>,
  rewrites: ReadonlyMap<string, SpecDoc> = new Map(),
): ModelResult {
  const original = renderModel(doc.blocks, doc.tail, eol);
  const version = `v${createHash('sha256').update(original).digest('hex').slice(0, 12)}`;
  // New text follows the body's line endings; a body without any gets "\n".
  const state = initialState(doc, /[\r\n]/.test(original) ? eol : '\n', handles);
  const byHandle = new Map(state.blocks.map((b) => [b.handle!, b]));
  const find = (handle: string): ModelBlock => {
    const block = byHandle.get(handle);
    if (state.rewritten || !block || block.gone) throw new Refused();
    return block;
  };
  for (let n = 0; n < edits.length; n++) {
    const edit = edits[n]!;
    try {
      switch (edit.op) {
        case 'replace':
          replace(state, find(edit.handle), blocksOf(fragments, edit.markdown));
          break;
        case 'insert':
          if ('handle' in edit) insert(state, blocksOf(fragments, edit.markdown), edit.position, find(edit.handle));
          else insert(state, blocksOf(fragments, edit.markdown), edit.position, null);
          break;
        case 'delete':
          remove(state, find(edit.handle)).forEach((b) => (b.gone = true));
          break;
        case 'setChecked':
          setChecked(find(edit.handle), edit.checked);
          break;
        case 'move': {
          const x = find(edit.handle);
          const target = 'target' in edit ? find(edit.target) : null;
          move(state, x, edit.position, target);
          break;
        }
        case 'replaceText':
          replaceText(state, find(edit.handle), edit.find, edit.replace);
          break;
        case 'rewrite': {
          if (edit.baseVersion !== version) throw new Refused();
          const next = rewrites.get(edit.markdown);
          if (!next) throw new Error('model: unknown rewrite markdown');
          const fresh = initialState(next, /[\r\n]/.test(original) ? eol : '\n', null);
          state.blocks = fresh.blocks;
          state.tail = fresh.tail;
          state.rewritten = true;
          break;
        }
      }
    } catch (err) {
      if (err instanceof Refused) return { ok: false, editIndex: n };
      throw err;
    }
  }
  return { ok: true, text: renderModel(state.blocks, state.tail, ''), blocks: mergeIntoParents(state.blocks) };
}

/**
 * Markdown's reading of the result: a non-list block right after an item, at
 * that item's content level, is part of the item's own text (an item's block
 * runs up to its first nested list).
 */
function mergeIntoParents(blocks: readonly ModelBlock[]): ModelBlock[] {
  const out: ModelBlock[] = [];
  for (const block of blocks) {
    const previous = out[out.length - 1];
    if (previous?.item && !block.item && block.depth === previous.depth + 1) {
      out[out.length - 1] = { ...previous, text: previous.text + block.gap + block.text, changed: true };
    } else out.push(block);
  }
  return out;
}

function initialState(doc: SpecDoc, eol: string, handles: readonly string[] | null): State {
  const conv = (s: string): string => s.replace(/\n/g, eol);
  const blocks = doc.blocks.map((b, i) => ({
    ...b,
    text: conv(b.text),
    gap: conv(b.gap),
    id: i,
    handle: handles ? handles[i]! : null,
    gone: false,
    changed: false,
  }));
  return { blocks, tail: conv(doc.tail), eol, rewritten: false, nextId: blocks.length };
}

function renderModel(blocks: readonly SpecBlock[], tail: string, eol: string): string {
  const text = blocks.map((b) => b.gap + b.text).join('') + tail;
  return eol === '' || eol === '\n' ? text : text.replace(/\n/g, eol);
}

function blocksOf(fragments: ReadonlyMap<string, SpecBlock[]>, markdown: string): SpecBlock[] {
  const blocks = fragments.get(markdown);
  if (!blocks) throw new Error(`model: unknown fragment ${JSON.stringify(markdown)}`);
  return blocks.map((b) => ({ ...b }));
}

// ---- text helpers (plain, independent of the implementation) ----

const lineEndings = (s: string): number => (s.match(/\r\n|\r|\n/g) ?? []).length;
const hasBlank = (gap: string): boolean => lineEndings(gap) >= 2;
const lf = (s: string): string => s.replace(/\r\n?/g, '\n');

function splitGap(gap: string): { lines: string; indent: string } {
  const m = /^([\s\S]*[\r\n])?([^\r\n]*)$/.exec(gap)!;
  return { lines: m[1] ?? '', indent: m[2]! };
}

function indentText(text: string, pad: string): string {
  return text
    .split('\n')
    .map((line, i) => (i > 0 && line !== '' ? pad + line : line))
    .join('\n');
}

function indentLastLine(gap: string, pad: string): string {
  const at = gap.lastIndexOf('\n');
  return at === -1 ? gap : gap.slice(0, at + 1) + pad + gap.slice(at + 1);
}

function dedentLastLine(gap: string, width: number): string {
  const at = gap.lastIndexOf('\n');
  if (at === -1) return gap;
  const last = gap.slice(at + 1);
  return gap.slice(0, at + 1) + last.slice(Math.min(width, last.length - last.trimStart().length));
}

function dedentText(text: string, width: number): string {
  return text
    .split('\n')
    .map((line, i) => (i === 0 ? line : line.slice(Math.min(width, line.length - line.trimStart().length))))
    .join('\n');
}

// ---- the rules ----

function subtreeEnd(state: State, i: number): number {
  let j = i + 1;
  while (j < state.blocks.length && state.blocks[j]!.depth > state.blocks[i]!.depth) j++;
  return j;
}

function itemSeparator(state: State, i: number): string {
  const x = state.blocks[i]!;
  let k = i - 1;
  while (k >= 0 && state.blocks[k]!.depth > x.depth) k--;
  const previous = state.blocks[k];
  // Only items of the same list (same bullet) say whether the list is loose.
  const sameList = (b: ModelBlock | undefined): boolean => !!b && b.item !== null && x.item !== null && b.item.marker === x.item.marker;
  let loose: boolean;
  if (previous && previous.depth === x.depth && sameList(previous)) loose = hasBlank(x.gap);
  else {
    const next = state.blocks[subtreeEnd(state, i)];
    loose = !!next && next.depth === x.depth && sameList(next) && hasBlank(next.gap);
  }
  return (loose ? state.eol + state.eol : state.eol) + ' '.repeat(x.col);
}

/** Leading top-level items take the list's bullet (bullets are all one character wide). */
function adoptBullet(fragment: SpecBlock[], marker: string): void {
  for (const block of fragment) {
    if (block.depth !== 0) continue;
    if (!block.item) break;
    block.text = marker + block.text.slice(block.item.marker.length);
    block.item = { marker, checkbox: block.item.checkbox };
  }
}

function place(state: State, fragment: readonly SpecBlock[], col: number, depth: number, origins?: ModelBlock[]): ModelBlock[] {
  const pad = ' '.repeat(col);
  return fragment.map((f, k) => {
    const fields = {
      text: indentText(f.text, pad).replace(/\n/g, state.eol),
      gap: k === 0 ? '' : indentLastLine(f.gap, pad).replace(/\n/g, state.eol),
      depth: depth + f.depth,
      col: col + f.col,
      item: f.item,
    };
    const origin = origins?.[k];
    if (origin) return Object.assign(origin, fields, { changed: true });
    return { ...fields, id: state.nextId++, handle: null, gone: false, changed: true };
  });
}

function lastTop(fragment: readonly SpecBlock[]): SpecBlock {
  return [...fragment].reverse().find((b) => b.depth === 0) ?? fragment[0]!;
}

function insert(state: State, fragment: SpecBlock[], position: 'before' | 'after' | 'start' | 'end', x: ModelBlock | null, origins?: ModelBlock[]): void {
  const blocks = state.blocks;
  const startsWithItem = fragment[0]!.item !== null;
  const endsWithItem = lastTop(fragment).item !== null;
  const blank = (col: number): string => state.eol + state.eol + ' '.repeat(col);
  if (x) {
    const i = blocks.indexOf(x);
    const join = x.item !== null && startsWithItem;
    if (join) adoptBullet(fragment, x.item!.marker);
    const sep = join ? itemSeparator(state, i) : '';
    const placed = place(state, fragment, x.col, x.depth, origins);
    if (position === 'after') {
      const j = subtreeEnd(state, i);
      placed[0]!.gap = join ? sep : blank(x.col);
      const next = blocks[j];
      if (next && !(join && endsWithItem) && !hasBlank(next.gap)) next.gap = state.eol + next.gap;
      blocks.splice(j, 0, ...placed);
    } else {
      placed[0]!.gap = i === 0 || join || hasBlank(x.gap) ? x.gap : state.eol + x.gap;
      x.gap = join && endsWithItem ? sep : blank(x.col);
      blocks.splice(i, 0, ...placed);
    }
    return;
  }
  if (blocks.length === 0) {
    const placed = place(state, fragment, 0, 0, origins);
    placed[0]!.gap = '';
    blocks.push(...placed);
    return;
  }
  if (position === 'start') {
    const first = blocks[0]!;
    const join = first.item !== null && startsWithItem;
    if (join) adoptBullet(fragment, first.item!.marker);
    const sep = join ? itemSeparator(state, 0) : '';
    const placed = place(state, fragment, join ? first.col : 0, 0, origins);
    const { lines, indent } = splitGap(first.gap);
    placed[0]!.gap = join ? lines + indent : lines;
    first.gap = join && endsWithItem ? sep : state.eol + state.eol + indent;
    blocks.unshift(...placed);
    return;
  }
  let t = blocks.length - 1;
  while (t > 0 && blocks[t]!.depth > 0) t--;
  const top = blocks[t]!;
  const join = top.item !== null && startsWithItem;
  if (join) adoptBullet(fragment, top.item!.marker);
  const placed = place(state, fragment, join ? top.col : 0, 0, origins);
  placed[0]!.gap = join ? itemSeparator(state, t) : state.eol + state.eol;
  blocks.push(...placed);
}

function replace(state: State, x: ModelBlock, fragment: SpecBlock[]): void {
  let blocks = fragment;
  if (x.item) {
    if (!fragment[0]!.item) {
      const text = renderModel(fragment, '', '\n');
      const startsWithText = !/^(#|```|~~~|\||>|\*\*\*|<div>)/.test(fragment[0]!.text);
      const box = x.item.checkbox >= 0 && startsWithText ? `[${x.text.charAt(x.item.checkbox + 1)}] ` : '';
      const item: SpecItem = { marker: x.item.marker, checkbox: box ? x.item.marker.length + 1 : -1 };
      blocks = [{ text: `${x.item.marker} ${box}${indentText(text, ' '.repeat(x.item.marker.length + 1))}`, gap: '', depth: 0, col: 0, item }];
    }
    adoptBullet(blocks, x.item.marker);
  }
  const i = state.blocks.indexOf(x);
  // The generator's only HTML is "<div>…</div>"; when the fragment's last block is one, it ends the
  // replacement's text, also wrapped into an item ("- <div>…").
  const endsInHtml = /(^|\n) *<div>/.test(fragment[fragment.length - 1]!.text);
  const placed = place(state, blocks, x.col, x.depth);
  placed[0]!.gap = !x.item && i > 0 && !hasBlank(x.gap) ? state.eol + x.gap : x.gap;
  const next = state.blocks[i + 1];
  const nestedUnder = !!x.item && !!next && next.depth > x.depth && endsInHtml;
  if ((!x.item || nestedUnder) && next && !hasBlank(next.gap)) next.gap = state.eol + next.gap;
  state.blocks.splice(i, 1, ...placed);
  x.gone = true;
}

function remove(state: State, x: ModelBlock): ModelBlock[] {
  const i = state.blocks.indexOf(x);
  const removed = state.blocks.splice(i, subtreeEnd(state, i) - i);
  if (state.blocks.length === 0) {
    state.tail = '';
    return removed;
  }
  const next = state.blocks[i];
  if (next && (i === 0 || lineEndings(next.gap) < lineEndings(removed[0]!.gap))) {
    next.gap = splitGap(removed[0]!.gap).lines + splitGap(next.gap).indent;
  }
  return removed;
}

function move(state: State, x: ModelBlock, position: 'before' | 'after' | 'start' | 'end', target: ModelBlock | null): void {
  if (target === x) throw new Refused();
  const i = state.blocks.indexOf(x);
  const j = subtreeEnd(state, i);
  if (target && state.blocks.slice(i, j).includes(target)) throw new Refused();
  const moving = state.blocks.slice(i, j);
  const fragment: SpecBlock[] = moving.map((b, k) => ({
    text: dedentText(lf(b.text), x.col),
    gap: k === 0 ? '' : dedentLastLine(lf(b.gap), x.col),
    depth: b.depth - x.depth,
    col: b.col - x.col,
    item: b.item,
  }));
  remove(state, x);
  insert(state, fragment, position, target, moving);
}

function setChecked(x: ModelBlock, checked: boolean): void {
  if (!x.item || x.item.checkbox < 0) throw new Refused();
  const at = x.item.checkbox + 1;
  const current = x.text.charAt(at) !== ' ';
  if (current === checked) return;
  x.text = x.text.slice(0, at) + (checked ? 'x' : ' ') + x.text.slice(at + 1);
  x.changed = true;
}

function replaceText(state: State, x: ModelBlock, find: string, replacement: string): void {
  const f = lf(find).replace(/\n/g, state.eol);
  let count = 0;
  for (let k = x.text.indexOf(f); k !== -1; k = x.text.indexOf(f, k + 1)) count++;
  if (count !== 1) throw new Refused();
  const text = x.text.replace(f, () => lf(replacement).replace(/\n/g, state.eol));
  if (text.trim() === '') throw new Refused();
  x.text = text;
  x.changed = true;
}
