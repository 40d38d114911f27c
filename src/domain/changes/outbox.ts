/**
 * The transactional outbox, write side: a change and the work it causes (search indexing,
 * event deliveries, enrichment) commit together or not at all. The pump that reads these rows
 * and hands them to their consumers is src/jobs/outbox.ts.
 */
import type { Knex } from 'knex';

/** Writes one outbox row in the caller's transaction. */
export async function emit(trx: Knex, topic: string, subjectId: string, payload: Record<string, unknown> = {}): Promise<void> {
  await trx('outbox').insert({ topic, subject_id: subjectId, payload: JSON.stringify(payload) });
}
