/**
 * Events: the catalog (one event, `task.awaitingAgent`) and emitting an occurrence into the
 * transactional outbox, in the caller's transaction. The outbox consumer in
 * src/jobs/webhooks.ts fans it out to subscriptions and the job queue delivers it.
 * @see docs/events.md
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { emit } from './outbox.js';

export const AWAITING_AGENT = 'task.awaitingAgent';
/** Outbox topic of event occurrences; subject is the task id. */
export const EVENT_TOPIC = 'event';

export type AwaitingReason = 'assigned' | 'reply';

/** One event occurrence: the body of a webhook delivery. */
export interface EventOccurrence {
  eventId: string;
  name: string;
  timestamp: string;
  data: { taskId: string; title: string | null; reason: AwaitingReason; agentName: string; occurredAt: string };
  cursor: null;
}

/** The event catalog, as MCP `events/list` shows it. */
export const EVENT_CATALOG = [
  {
    name: AWAITING_AGENT,
    description:
      'A task now waits on an agent: the person assigned it to the agent by name (reason `assigned`), or answered in its chat after the agent last posted with needsInput (reason `reply`). ' +
      'Read the chat with read_chat_messages and answer with post_chat_message on the same task id.',
    delivery: ['webhook'],
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    payloadSchema: {
      type: 'object',
      required: ['taskId', 'title', 'reason', 'agentName', 'occurredAt'],
      properties: {
        taskId: { type: 'string', format: 'uuid' },
        title: { type: ['string', 'null'] },
        reason: { type: 'string', enum: ['assigned', 'reply'] },
        agentName: { type: 'string', description: 'The agent the task waits on: its assignedAgent, or the agent whose question the person answered.' },
        occurredAt: { type: 'string', format: 'date-time' },
      },
    },
  },
] as const;

export const EVENT_NAMES: string[] = EVENT_CATALOG.map((e) => e.name);

/**
 * Emits `task.awaitingAgent` for a task, through the outbox in `trx` (so it is sent if and only
 * if the change that caused it commits).
 */
export async function emitAwaitingAgent(
  trx: Knex,
  task: { id: string; title: string | null },
  reason: AwaitingReason,
  agentName: string,
  at: Date,
): Promise<EventOccurrence> {
  const occurrence: EventOccurrence = {
    eventId: `evt_${randomUUID().replace(/-/g, '')}`,
    name: AWAITING_AGENT,
    timestamp: at.toISOString(),
    data: { taskId: task.id, title: task.title, reason, agentName, occurredAt: at.toISOString() },
    cursor: null,
  };
  await emit(trx, EVENT_TOPIC, task.id, occurrence as unknown as Record<string, unknown>);
  return occurrence;
}
