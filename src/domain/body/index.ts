/**
 * Block-level editing of Markdown bodies: read a body with a handle in front
 * of every block, then apply edits addressed by those handles. Pure: no I/O.
 * See README.md in this folder for the contract given to agents.
 */
export { applyEdits, type ApplyResult } from './apply.js';
export { bodyVersion } from './cache.js';
export { parseEdit, type BodyEdit } from './edits.js';
export { stripHandles } from './handles.js';
export { readForEditing, type EditableBody } from './read.js';
