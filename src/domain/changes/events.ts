/**
 * Events: the catalog, and emitting an occurrence into the transactional outbox in the caller's
 * transaction. `task.awaitingAgent` is emitted here; the change events (lists, items, a
 * person's chat reply) by triggers in the same transaction as the change (migration
 * 20261125000100). The outbox consumer in src/jobs/webhooks.ts fans an occurrence out to
 * subscriptions and the job queue delivers it.
 * @see docs/events.md
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { emit } from './outbox.js';

export const AWAITING_AGENT = 'task.awaitingAgent';
export const REMINDER = 'task.reminder';
/** Outbox topic of event occurrences; subject is the task id. */
export const EVENT_TOPIC = 'event';

export type AwaitingReason = 'assigned' | 'reply';

/** One event occurrence: the body of a webhook delivery. `name` repeats `type` for receivers of earlier builds. */
export interface EventOccurrence {
  eventId: string;
  type: string;
  name: string;
  timestamp: string;
  data: Record<string, unknown>;
  cursor: null;
}

/** Events that REST subscriptions made without `events` receive (all there was before change events). */
export const DEFAULT_EVENTS = [AWAITING_AGENT];

const ITEM_EVENT_PAYLOAD = {
  type: 'object',
  required: ['itemId', 'listId', 'previousListId', 'title', 'taskStatus', 'updatedAt', 'changed', 'occurredAt'],
  properties: {
    itemId: { type: 'string', format: 'uuid' },
    listId: { type: 'string', format: 'uuid' },
    previousListId: { type: ['string', 'null'], description: 'With item.moved: the list it left.' },
    title: { type: ['string', 'null'] },
    taskStatus: { type: ['string', 'null'] },
    updatedAt: { type: 'string', description: "The item's version: its updatedAt after the change (microseconds)." },
    changed: { type: 'array', items: { type: 'string' }, description: 'The fields the change touched (empty for item.created).' },
    occurredAt: { type: 'string', format: 'date-time' },
    item: { type: 'object', description: 'With includeItem on the subscription: the item as it is when the event is sent.' },
  },
} as const;

const LIST_EVENT_PAYLOAD = {
  type: 'object',
  required: ['listId', 'name', 'updatedAt', 'occurredAt'],
  properties: {
    listId: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    updatedAt: { type: 'string' },
    occurredAt: { type: 'string', format: 'date-time' },
  },
} as const;

const itemEvent = (name: string, description: string) => ({
  name,
  description: `${description} Sent to the item's owner, in order per item; read the item with get_item, or subscribe with includeItem.`,
  delivery: ['webhook'],
  inputSchema: {
    type: 'object',
    properties: { includeItem: { type: 'boolean', description: 'Each event carries the whole item (data.item) as it is when the event is sent.' } },
    additionalProperties: false,
  },
  payloadSchema: ITEM_EVENT_PAYLOAD,
});
const listEvent = (name: string, description: string) => ({
  name,
  description,
  delivery: ['webhook'],
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  payloadSchema: LIST_EVENT_PAYLOAD,
});

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
  {
    name: REMINDER,
    description:
      "A task's reminder time came (its reminderAt, set by the person or an agent). Sent once, to subscriptions that chose it; not for completed, archived or deleted tasks.",
    delivery: ['webhook'],
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    payloadSchema: {
      type: 'object',
      required: ['itemId', 'listId', 'title', 'reminderAt', 'dueAt', 'occurredAt'],
      properties: {
        itemId: { type: 'string', format: 'uuid' },
        listId: { type: 'string', format: 'uuid' },
        title: { type: ['string', 'null'] },
        reminderAt: { type: 'string', format: 'date-time' },
        dueAt: { type: ['string', 'null'] },
        occurredAt: { type: 'string', format: 'date-time' },
      },
    },
  },
  itemEvent('item.created', 'An item was added.'),
  itemEvent('item.updated', 'An item changed (title, body, values, status other than completion, due date, archive, assignment); `changed` names the fields.'),
  itemEvent('item.completed', 'A task was completed.'),
  itemEvent('item.deleted', 'An item went to the trash.'),
  itemEvent('item.restored', 'An item came back from the trash.'),
  itemEvent('item.moved', 'An item moved to another list (`previousListId` is the one it left).'),
  listEvent('list.created', 'A list was made.'),
  listEvent('list.updated', 'A list was renamed or its properties, icon, instructions or layout changed.'),
  listEvent('list.deleted', 'A list went to the trash, with its items.'),
  listEvent('list.restored', 'A list came back from the trash, with its items.'),
  {
    name: 'chat.replied',
    description: "The person wrote in an item's chat. Read it with read_chat_messages; answer with post_chat_message.",
    delivery: ['webhook'],
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    payloadSchema: {
      type: 'object',
      required: ['itemId', 'listId', 'title', 'messageId', 'authorName', 'text', 'occurredAt'],
      properties: {
        itemId: { type: 'string', format: 'uuid' },
        listId: { type: 'string', format: 'uuid' },
        title: { type: ['string', 'null'] },
        messageId: { type: 'string', format: 'uuid' },
        authorName: { type: 'string' },
        text: { type: 'string', description: 'The message, cut at 500 characters.' },
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
    type: AWAITING_AGENT,
    name: AWAITING_AGENT,
    timestamp: at.toISOString(),
    data: { taskId: task.id, title: task.title, reason, agentName, occurredAt: at.toISOString() },
    cursor: null,
  };
  await emit(trx, EVENT_TOPIC, task.id, occurrence as unknown as Record<string, unknown>);
  return occurrence;
}
