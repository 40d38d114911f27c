/**
 * Notices to the person: a task's reminder came, or an agent asks for their answer
 * (`needsInput`). Written into the transactional outbox in the transaction of what caused
 * them (the reminder's claim, the agent's message), so one is written exactly when that
 * commits; the consumer of src/jobs/notifications.ts sends each by the channels the person
 * turned on (src/domain/notifications/).
 * @see docs/notifications.md
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { emit } from './outbox.js';

/** Outbox topic of notices; the subject is the item. */
export const NOTICE_TOPIC = 'notice';

export type NoticeKind = 'reminder' | 'question';

/** What a notice says, as the outbox row carries it. */
export interface Notice {
  noticeId: string;
  kind: NoticeKind;
  userId: string;
  itemId: string;
  title: string | null;
  /** A reminder: the task's due date, if it has one. */
  dueAt?: string | null;
  /** A question: the agent's name and its message. */
  agentName?: string;
  text?: string;
  occurredAt: string;
}

/** Writes a notice for the person into the outbox, in the caller's transaction. */
export async function emitNotice(trx: Knex, notice: Omit<Notice, 'noticeId'>): Promise<void> {
  await emit(trx, NOTICE_TOPIC, notice.itemId, { noticeId: randomUUID(), ...notice });
}
