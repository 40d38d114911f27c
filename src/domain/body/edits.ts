import { CLOSE, OPEN } from './handles.js';

/** One block-level edit, addressed by the handles readForEditing showed. */
export type BodyEdit =
  | { op: 'replace'; handle: string; markdown: string }
  | { op: 'insert'; position: 'before' | 'after'; handle: string; markdown: string }
  | { op: 'insert'; position: 'start' | 'end'; markdown: string }
  | { op: 'delete'; handle: string }
  | { op: 'setChecked'; handle: string; checked: boolean }
  | { op: 'move'; handle: string; position: 'before' | 'after'; target: string }
  | { op: 'move'; handle: string; position: 'start' | 'end' }
  | { op: 'replaceText'; handle: string; find: string; replace: string }
  | { op: 'rewrite'; baseVersion: string; markdown: string };

/** The name of an edit operation. */
export type EditOp = BodyEdit['op'];

const OPS: readonly EditOp[] = ['replace', 'insert', 'delete', 'setChecked', 'move', 'replaceText', 'rewrite'];

/** Fields each op takes; anything else is refused so a misspelt field is not silently ignored. */
const FIELDS: Record<EditOp, readonly string[]> = {
  replace: ['op', 'handle', 'markdown'],
  insert: ['op', 'position', 'handle', 'markdown'],
  delete: ['op', 'handle'],
  setChecked: ['op', 'handle', 'checked'],
  move: ['op', 'handle', 'position', 'target'],
  replaceText: ['op', 'handle', 'find', 'replace'],
  rewrite: ['op', 'baseVersion', 'markdown'],
};

const HANDLE_TEXT = /^[a-z0-9]{3,4}$/;

/** Validate an untrusted edit object; returns the edit, or a sentence naming the field at fault. */
export function parseEdit(raw: unknown): BodyEdit | string {
  try {
    return readEdit(raw);
  } catch (err) {
    if (err instanceof FieldError) return err.message;
    throw err;
  }
}

class FieldError extends Error {}

function readEdit(raw: unknown): BodyEdit | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return 'Each edit must be an object such as {"op":"delete","handle":"k3f"}.';
  }
  const obj = raw as Record<string, unknown>;
  const op = obj.op;
  if (typeof op !== 'string' || !(OPS as readonly string[]).includes(op)) {
    return `op must be one of ${OPS.join(', ')}${typeof op === 'string' ? ` (got "${op}")` : ''}.`;
  }
  const known = FIELDS[op as EditOp];
  const unknown = Object.keys(obj).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    return `${op} does not take ${unknown.map((k) => `"${k}"`).join(', ')}; its fields are ${known.join(', ')}.`;
  }
  switch (op as EditOp) {
    case 'replace': {
      const handle = handleField(obj, 'handle');
      const markdown = markdownField(obj, 'markdown', op);
      return { op: 'replace', handle, markdown };
    }
    case 'insert': {
      const position = obj.position;
      if (position !== 'before' && position !== 'after' && position !== 'start' && position !== 'end') {
        return 'position must be "before", "after", "start" or "end".';
      }
      const markdown = markdownField(obj, 'markdown', op);
      if (position === 'start' || position === 'end') {
        if (obj.handle !== undefined) return `handle must be left out when position is "${position}".`;
        return { op: 'insert', position, markdown };
      }
      const handle = handleField(obj, 'handle');
      return { op: 'insert', position, handle, markdown };
    }
    case 'delete': {
      const handle = handleField(obj, 'handle');
      return { op: 'delete', handle };
    }
    case 'setChecked': {
      const handle = handleField(obj, 'handle');
      if (typeof obj.checked !== 'boolean') return 'checked must be true or false.';
      return { op: 'setChecked', handle, checked: obj.checked };
    }
    case 'move': {
      const handle = handleField(obj, 'handle');
      const position = obj.position;
      if (position === 'start' || position === 'end') {
        if (obj.target !== undefined) return `target must be left out when position is "${position}".`;
        return { op: 'move', handle, position };
      }
      if (position !== 'before' && position !== 'after') return 'position must be "before", "after", "start" or "end".';
      const target = handleField(obj, 'target');
      return { op: 'move', handle, position, target };
    }
    case 'replaceText': {
      const handle = handleField(obj, 'handle');
      if (typeof obj.find !== 'string' || obj.find === '') return 'find must be a non-empty string copied from the block.';
      if (typeof obj.replace !== 'string') return 'replace must be a string (use "" to remove the found text).';
      return { op: 'replaceText', handle, find: obj.find, replace: obj.replace };
    }
    case 'rewrite': {
      if (typeof obj.baseVersion !== 'string' || obj.baseVersion === '') {
        return 'baseVersion must be the version string you read, such as "v1a2b3c4d5e6f".';
      }
      if (typeof obj.markdown !== 'string') return 'markdown must be a string holding the whole new body.';
      return { op: 'rewrite', baseVersion: obj.baseVersion, markdown: obj.markdown };
    }
  }
}

/** Accept a handle as shown ("⟦k3f⟧"), or bare; case and surrounding spaces do not matter. */
function handleField(obj: Record<string, unknown>, field: string): string {
  const raw = obj[field];
  if (typeof raw !== 'string') throw new FieldError(`${field} must be a block handle string such as "k3f".`);
  let value = raw.trim().toLowerCase();
  if (value.startsWith(OPEN) && value.endsWith(CLOSE)) value = value.slice(1, -1).trim();
  if (!HANDLE_TEXT.test(value)) {
    throw new FieldError(`${field} "${raw}" is not a handle; use the 3-4 characters shown between ⟦ and ⟧ in front of the block.`);
  }
  return value;
}

function markdownField(obj: Record<string, unknown>, field: string, op: string): string {
  const raw = obj[field];
  if (typeof raw !== 'string') throw new FieldError(`${field} must be a string of Markdown.`);
  if (raw.trim() === '') {
    throw new FieldError(op === 'replace' ? `${field} is empty; use delete to remove a block.` : `${field} is empty; give the Markdown to insert.`);
  }
  return raw;
}
