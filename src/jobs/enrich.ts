/** The enrich pass as an outbox consumer: reads due dates from titles and suggests a better list (src/domain/items/enrich.ts). */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { enrichItem } from '../domain/items/enrich.js';
import type { OutboxConsumer } from './outbox.js';

/** The outbox consumer of ENRICH_TOPIC. */
export function enrichConsumer(db: Knex, now: () => Date, log: Logger): OutboxConsumer {
  return async (rows) => {
    for (const row of rows) {
      const note = await enrichItem(db, row.subject_id, new Date(String(row.payload.writtenAt)), now());
      log.debug({ itemId: row.subject_id, note }, 'enrich pass');
    }
  };
}
