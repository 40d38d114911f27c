import type { ParsedBody } from './blocks.js';
import { bodyVersion, parsedBody } from './cache.js';
import { handlesOf, renderWithHandles } from './handles.js';

/** A body as shown for editing: the text with a handle in front of every block. */
export interface EditableBody {
  text: string;
  version: string;
  handles: string[];
}

/** The body with a handle ("⟦k3f⟧ ") in front of every block, its version and the handles in order. */
export function readForEditing(body: string, version = bodyVersion(body)): EditableBody {
  return editableOf(parsedBody(body, version), version);
}

/** Render an already parsed body for editing. */
export function editableOf(parsed: ParsedBody, version: string): EditableBody {
  const handles = handlesOf(parsed);
  const at: number[] = [];
  for (let u = 0; u < parsed.units.length; u++) {
    const base = parsed.starts[u]!;
    for (const block of parsed.units[u]!.blocks) at.push(base + block.start);
  }
  return { text: renderWithHandles(parsed.text, at, handles), version, handles: handles.slice() };
}
