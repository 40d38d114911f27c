import { bodyVersion, parsedBody, rememberParsed } from './cache.js';
import { parseEdit, type BodyEdit } from './edits.js';
import { adoptListStyle, fragmentFromMarkdown, fromLf, hasBlankLine, listStyleOf, normaliseMarkdown, toLf } from './fragments.js';
import { handleIndexOf, handlesOf, stripHandles } from './handles.js';
import { fragmentFromBlocks, place, placeFragment, removeRange, wrapAsItem } from './placing.js';
import { editableOf, type EditableBody } from './read.js';
import { reparseBody } from './reparse.js';
import { serialize } from './serialize.js';
import { blockAt, depthAt, gapAt, itemOf, positionOf, Refusal, resolve, setGap, subtreeEnd, workDocOf, type WorkBlock, type WorkDoc } from './work-doc.js';

/** The new body, or why the edits were refused with the unchanged body and fresh handles. */
export type ApplyResult =
  | { ok: true; body: string; version: string; applied: string[] }
  | { ok: false; error: string; editIndex: number; body: string; version: string; editable: EditableBody };

/** Apply edits in order, all or nothing; a refusal returns the original body with fresh handles. */
export function applyEdits(body: string, edits: BodyEdit[]): ApplyResult {
  const version = bodyVersion(body);
  const parsed = parsedBody(body, version);
  const refuse = (error: string, editIndex: number): ApplyResult => ({
    ok: false,
    error,
    editIndex,
    body,
    version,
    editable: editableOf(parsed, version),
  });
  if (!Array.isArray(edits)) return refuse('edits must be an array of edit objects.', 0);
  const doc = workDocOf(body, parsed, handleIndexOf(parsed), handlesOf(parsed));
  const applied: string[] = [];
  for (let n = 0; n < edits.length; n++) {
    const edit = parseEdit(edits[n]);
    if (typeof edit === 'string') return refuse(edit, n);
    try {
      applied.push(applyOne(doc, edit, n, version));
    } catch (err) {
      if (err instanceof Refusal) return refuse(err.message, n);
      throw err;
    }
  }
  const { text, segments } = serialize(doc);
  if (text === body) return { ok: true, body, version, applied };
  const newVersion = bodyVersion(text);
  // Parse now, around the changes only, so the next read or edit of this body finds it parsed.
  rememberParsed(text === doc.base.text ? doc.base : reparseBody(doc.base, text, segments, { touched: doc.touched }), newVersion);
  return { ok: true, body: text, version: newVersion, applied };
}

function applyOne(doc: WorkDoc, edit: BodyEdit, n: number, version: string): string {
  switch (edit.op) {
    case 'replace':
      return replaceBlock(doc, resolve(doc, edit.handle), edit.handle, edit.markdown, n);
    case 'insert': {
      const fragment = fragmentFromMarkdown(edit.markdown);
      if (!fragment) throw new Refusal('markdown is empty once handles are removed; give the Markdown to insert.');
      const count = plural(fragment.length, 'block');
      if ('handle' in edit) {
        placeFragment(doc, fragment, { at: edit.position, block: resolve(doc, edit.handle) });
        return `inserted ${count} ${edit.position} ${edit.handle}`;
      }
      placeFragment(doc, fragment, { at: edit.position });
      return `inserted ${count} at the ${edit.position}`;
    }
    case 'delete':
      return deleteBlock(doc, resolve(doc, edit.handle), edit.handle, n);
    case 'setChecked':
      return setChecked(doc, resolve(doc, edit.handle), edit.handle, edit.checked);
    case 'move':
      return moveBlock(doc, edit);
    case 'replaceText':
      return replaceText(doc, resolve(doc, edit.handle), edit.handle, edit.find, edit.replace);
    case 'rewrite':
      return rewrite(doc, edit.baseVersion, edit.markdown, n, version);
  }
}

// ---- the edits ----------------------------------------------------------

function replaceBlock(doc: WorkDoc, x: WorkBlock, handle: string, markdown: string, n: number): string {
  let fragment = fragmentFromMarkdown(markdown);
  if (!fragment) throw new Refusal('markdown is empty once handles are removed; use delete to remove a block.');
  const item = itemOf(x);
  if (item) {
    // An item replaced by plain text stays an item of the same list, keeping its checkbox.
    if (!fragment[0]!.item) fragment = wrapAsItem(normaliseMarkdown(markdown), fragment[0]!.kind, item, x.text);
    adoptListStyle(fragment, listStyleOf(item, 0));
  }
  const i = positionOf(doc, x);
  const placed = place(doc, fragment, x.col, x.depth);
  const first = placed[0]!;
  // Blank lines around a replaced non-item keep the new text from merging with its neighbours.
  if (!item && i > 0 && !hasBlankLine(x.gap)) first.gap = doc.eol + x.gap;
  else {
    first.gap = x.gap;
    first.srcGap = x.srcGap;
  }
  // Nested items stay under a replaced item; an HTML block ending the new text would swallow them without a blank line.
  const nested = item !== null && i + 1 < doc.entries.length && depthAt(doc, i + 1) > x.depth;
  if ((!item || (nested && placed[placed.length - 1]!.endsInHtml)) && i + 1 < doc.entries.length && !hasBlankLine(gapAt(doc, i + 1))) {
    const next = blockAt(doc, i + 1);
    setGap(next, doc.eol + next.gap);
  }
  doc.entries.splice(i, 1, ...placed);
  x.gone = `Handle "${handle}" was replaced by edit ${n} of this call; put every change to that block into the one replace.`;
  return placed.length > 1 ? `replaced ${handle} with ${placed.length} blocks` : `replaced ${handle}`;
}

function deleteBlock(doc: WorkDoc, x: WorkBlock, handle: string, n: number): string {
  const i = positionOf(doc, x);
  const removed = removeRange(doc, i, subtreeEnd(doc, i));
  for (const block of removed) {
    const parent = block === x ? '' : ` together with its parent "${handle}"`;
    block.gone = `Handle "${block.handle}" was deleted by edit ${n} of this call${parent}; leave it out or read the body again.`;
  }
  const nested = removed.length - 1;
  return nested > 0 ? `deleted ${handle} and ${plural(nested, 'nested block')}` : `deleted ${handle}`;
}

function setChecked(doc: WorkDoc, x: WorkBlock, handle: string, checked: boolean): string {
  const item = itemOf(x);
  if (!item || item.checkbox < 0) {
    throw new Refusal(`Block "${handle}" is not a task list item (it has no "[ ]" checkbox); use replace to turn it into one.`);
  }
  const at = item.checkbox + 1;
  const mark = x.text.charAt(at);
  const word = checked ? 'checked' : 'unchecked';
  if ((mark === 'x' || mark === 'X') === checked) return `${handle} was already ${word}`;
  x.text = x.text.slice(0, at) + (checked ? 'x' : ' ') + x.text.slice(at + 1);
  // Still counted as copied text: a toggled checkbox changes no block boundaries.
  if (x.srcText >= 0) doc.touched.push(x.srcText + at);
  return `${word} ${handle}`;
}

function moveBlock(doc: WorkDoc, edit: Extract<BodyEdit, { op: 'move' }>): string {
  const x = resolve(doc, edit.handle);
  const target = edit.position === 'before' || edit.position === 'after' ? resolve(doc, edit.target) : null;
  const where = edit.position === 'before' || edit.position === 'after' ? `${edit.position} ${edit.target}` : `to the ${edit.position}`;
  if (target === x) throw new Refusal(`Cannot move "${edit.handle}" relative to itself; pick another block as target.`);
  const i = positionOf(doc, x);
  const j = subtreeEnd(doc, i);
  const t = target ? positionOf(doc, target) : -1;
  if (t >= i && t < j) {
    throw new Refusal(`Cannot move "${edit.handle}" ${where}, which is nested inside it; pick a target outside the moved block.`);
  }
  const moving: WorkBlock[] = [];
  for (let k = i; k < j; k++) moving.push(blockAt(doc, k));
  const fragment = fragmentFromBlocks(moving);
  removeRange(doc, i, j);
  placeFragment(doc, fragment, target ? { at: edit.position as 'before' | 'after', block: target } : { at: edit.position as 'start' | 'end' }, moving);
  const nested = moving.length > 1 ? ` with ${plural(moving.length - 1, 'nested block')}` : '';
  return `moved ${edit.handle}${nested} ${where}`;
}

function replaceText(doc: WorkDoc, x: WorkBlock, handle: string, findRaw: string, replaceRaw: string): string {
  const find = fromLf(toLf(stripHandles(findRaw)), doc.eol);
  const replacement = fromLf(toLf(stripHandles(replaceRaw)), doc.eol);
  if (find === '') throw new Refusal('find is empty once handles are removed; copy the text to change from the block.');
  let count = 0;
  let at = -1;
  for (let k = x.text.indexOf(find); k !== -1; k = x.text.indexOf(find, k + 1)) {
    if (count === 0) at = k;
    count++;
  }
  if (count === 0) {
    throw new Refusal(`The find text does not occur in block "${handle}"; copy it exactly from the block as read, without the handle.`);
  }
  if (count > 1) {
    throw new Refusal(`The find text occurs ${count} times in block "${handle}"; include more of the surrounding text so it matches exactly once.`);
  }
  const text = x.text.slice(0, at) + replacement + x.text.slice(at + find.length);
  if (text.trim() === '') throw new Refusal(`That replacement would leave block "${handle}" empty; use delete to remove a block.`);
  x.text = text;
  x.srcText = -1;
  x.stale = true;
  return `replaced text in ${handle}`;
}

function rewrite(doc: WorkDoc, baseVersion: string, markdown: string, n: number, version: string): string {
  if (baseVersion !== version) {
    throw new Refusal(`baseVersion "${baseVersion}" is not the current version "${version}"; read the body again and base the rewrite on what you read.`);
  }
  let text = stripHandles(markdown);
  // A body that has line endings keeps its style; an empty or one-line body takes the new text's.
  if (/[\r\n]/.test(doc.original)) text = fromLf(toLf(text), doc.eol);
  const fresh = workDocOf(doc.original, parsedBody(text), new Map(), []);
  doc.base = fresh.base;
  doc.flat = fresh.flat;
  doc.entries = fresh.entries;
  doc.tail = fresh.tail;
  doc.srcTail = fresh.srcTail;
  doc.made = fresh.made;
  doc.touched = [];
  doc.rewrittenBy = n;
  return 'rewrote the whole body';
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
