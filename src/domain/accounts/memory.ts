/**
 * The person's memory: what they asked the AI to remember. Agents read it (get_context,
 * read-only); the person keeps it with `listkeeper memory` (and the Settings page).
 */
import type { Knex } from 'knex';
import { invalid, notFound } from '../../core/errors.js';
import { isUuid } from '../ids.js';

export const MEMORY_MAX_CHARS = 500;

export interface MemoryRow {
  id: string;
  user_id: string;
  text: string;
  created_at: Date;
}

/** A memory line as the person's operations answer it. */
export function memoryDto(row: MemoryRow): { id: string; text: string; createdAt: string } {
  return { id: row.id, text: row.text, createdAt: row.created_at.toISOString() };
}

export async function addMemory(db: Knex, userId: string, text: string): Promise<MemoryRow> {
  const clean = text.trim();
  if (!clean || clean.length > MEMORY_MAX_CHARS) throw invalid(`A memory is 1 to ${MEMORY_MAX_CHARS} characters; received ${clean.length}.`, 'text');
  const [row] = (await db('memory').insert({ user_id: userId, text: clean }).returning('*')) as MemoryRow[];
  return row!;
}

export async function listMemory(db: Knex, userId: string): Promise<MemoryRow[]> {
  return (await db('memory').where({ user_id: userId }).orderBy('created_at').orderBy('id')) as MemoryRow[];
}

export async function removeMemory(db: Knex, userId: string, id: string): Promise<MemoryRow> {
  const [row] = isUuid(id) ? ((await db('memory').where({ id, user_id: userId }).delete().returning('*')) as MemoryRow[]) : [];
  if (!row) throw notFound(`No memory ${id} for this account; 'listkeeper memory list' shows the ids.`);
  return row;
}
