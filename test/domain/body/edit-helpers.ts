/** Helpers the block-edit suites share: handles by snippet, edits that must succeed or be refused, a sample body. */
import { applyEdits, readForEditing, type ApplyResult, type BodyEdit } from '../../../src/domain/body/index.js';

/** Handle of the block whose displayed first line contains `snippet`. */
export function handleOf(body: string, snippet: string): string {
  const lines = readForEditing(body)
    .text.split(/\r?\n/)
    .filter((line) => line.includes(snippet));
  const handles = lines.map((line) => /\u27e6([a-z0-9]{3,4})\u27e7 /.exec(line)?.[1]).filter((h): h is string => h !== undefined);
  if (handles.length !== 1) throw new Error(`expected one block showing ${JSON.stringify(snippet)}, found ${handles.length}`);
  return handles[0]!;
}

/** Apply edits that must succeed; edits may name blocks as {of: snippet} instead of a handle. */
export function edited(body: string, ...edits: BodyEdit[]): string {
  const result = applyEdits(body, edits);
  if (!result.ok) throw new Error(`refused: ${result.error}`);
  return result.body;
}

export function refused(body: string, ...edits: BodyEdit[]): Extract<ApplyResult, { ok: false }> {
  const result = applyEdits(body, edits);
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.body)}`);
  return result;
}

export const groceries = ['# Groceries', '', '- [ ] milk', '- [x] eggs', '  - [ ] brown', '  - [ ] white', '- bread', '', 'Notes after the list.', ''].join(
  '\n',
);
