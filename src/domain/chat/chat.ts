/**
 * Per-item chats: reading with a `since` cursor, agents' posts (idempotent by `messageKey`),
 * the person's messages (which release `task.awaitingAgent` with reason `reply` when they
 * answer an agent's question), unread state, and the person's main conversation: one line
 * per agent post across every item they reach.
 * @see openapi/openapi.yaml read_chat_messages, post_chat_message
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../generated/api.js';
import type { ItemDbRow } from '../items/items.js';
import { keepsStatus, type ListRow } from '../lists/lists.js';
import { AUTHOR_KEY } from '../../store/migrations/20261124000100_chat_keys_per_author.js';
import { emitAwaitingAgent } from '../changes/events.js';
import { emitNotice } from '../changes/notices.js';

export type ChatMessageDto = components['schemas']['ChatMessage'];
export type AuthorKind = 'person' | 'service' | 'agent';

export interface ChatMessageRow {
  id: string;
  item_id: string;
  session_id: string;
  author_kind: AuthorKind;
  author_name: string;
  author_user_id: string | null;
  text: string;
  needs_input: boolean;
  message_key: string | null;
  created_at: Date;
  updated_at: Date;
  read_at: Date | null;
}

export const DEFAULT_AGENT_NAME = 'Your agent';

export function chatMessageDto(row: ChatMessageRow): ChatMessageDto {
  return {
    id: row.id,
    authorKind: row.author_kind,
    authorName: row.author_name,
    text: row.text,
    needsInput: row.needs_input,
    messageKey: row.message_key,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * Serializes the writers of one chat until their transaction ends, then stamps the next
 * message: `createdAt` has millisecond precision (what ISO strings carry), is unique and rises
 * within the chat in commit order, so `since` never skips nor repeats a message.
 */
async function stampNext(trx: Knex, itemId: string): Promise<{ sessionId: string; at: Date }> {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`chat:${itemId}`]);
  const last = (await trx('chat_messages').where({ item_id: itemId }).orderBy('created_at', 'desc').first('session_id', 'created_at')) as
    | { session_id: string; created_at: Date }
    | undefined;
  const now = ((await trx.raw(`SELECT date_trunc('milliseconds', clock_timestamp()) AS now`)) as { rows: { now: Date }[] }).rows[0]!.now;
  const at = last && last.created_at.getTime() >= now.getTime() ? new Date(last.created_at.getTime() + 1) : now;
  return { sessionId: last?.session_id ?? randomUUID(), at };
}

/** The chat of one item, oldest first, after `since` (exclusive); `truncated` when more follow. */
export async function readChat(
  db: Knex,
  itemId: string,
  options: { since?: string | undefined; limit: number },
): Promise<{ sessionId: string | null; messages: ChatMessageDto[]; truncated: boolean }> {
  const query = db('chat_messages').where({ item_id: itemId });
  // The instant goes to Postgres as sent, so a `since` finer than a millisecond is compared exactly.
  if (options.since) query.where('created_at', '>', options.since);
  const rows = (await query
    .orderBy('created_at')
    .orderBy('id')
    .limit(options.limit + 1)) as ChatMessageRow[];
  const session =
    rows[0]?.session_id ??
    ((await db('chat_messages').where({ item_id: itemId }).first('session_id')) as { session_id: string } | undefined)?.session_id ??
    null;
  return { sessionId: session, messages: rows.slice(0, options.limit).map(chatMessageDto), truncated: rows.length > options.limit };
}

export interface AgentPost {
  text: string;
  agentName: string;
  needsInput: boolean;
  messageKey: string | null;
  /** The person whose token posted. */
  userId: string;
}

/**
 * Posts (or, with a known `messageKey`, updates) an agent's message, in the caller's
 * transaction. A message that starts to wait on the person's answer (`needsInput`, new or
 * newly set) is a notice to them (src/domain/changes/notices.ts), written in the same transaction.
 */
export async function postAgentMessage(trx: Knex, itemId: string, post: AgentPost): Promise<{ row: ChatMessageRow; updated: boolean }> {
  const { sessionId, at } = await stampNext(trx, itemId);
  let posted: { row: ChatMessageRow; updated: boolean; asked: boolean } | undefined;
  if (post.messageKey) {
    // Only the same author's message: a key someone else used is theirs, and this post is a new message.
    const mine = { item_id: itemId, message_key: post.messageKey, author_kind: 'agent', author_user_id: post.userId };
    const before = (await trx('chat_messages').where(mine).forUpdate().first('needs_input')) as { needs_input: boolean } | undefined;
    const [existing] = (await trx('chat_messages')
      .where(mine)
      .update({ text: post.text, author_name: post.agentName, needs_input: post.needsInput, updated_at: at, read_at: null })
      .returning('*')) as ChatMessageRow[];
    if (existing) posted = { row: existing, updated: true, asked: post.needsInput && !before?.needs_input };
  }
  if (!posted) {
    const [row] = (await trx('chat_messages')
      .insert({
        item_id: itemId,
        session_id: sessionId,
        author_kind: 'agent',
        author_name: post.agentName,
        author_user_id: post.userId,
        text: post.text,
        needs_input: post.needsInput,
        message_key: post.messageKey,
        created_at: at,
        updated_at: at,
      })
      .returning('*')) as ChatMessageRow[];
    posted = { row: row!, updated: false, asked: post.needsInput };
  }
  if (posted.asked) {
    const item = (await trx('items').where({ id: itemId }).first('title')) as { title: string | null } | undefined;
    await emitNotice(trx, {
      kind: 'question',
      userId: post.userId,
      itemId,
      title: item?.title ?? null,
      agentName: post.agentName,
      text: post.text,
      occurredAt: at.toISOString(),
    });
  }
  return { row: posted.row, updated: posted.updated };
}

/**
 * Posts a message from the service itself (an automation run's result), in the caller's
 * transaction; the same `messageKey` again lands once.
 */
export async function postServiceMessage(trx: Knex, itemId: string, post: { text: string; authorName: string; messageKey: string }): Promise<ChatMessageRow> {
  const { sessionId, at } = await stampNext(trx, itemId);
  const [row] = (await trx('chat_messages')
    .insert({
      item_id: itemId,
      session_id: sessionId,
      author_kind: 'service',
      author_name: post.authorName,
      text: post.text,
      message_key: post.messageKey,
      created_at: at,
      updated_at: at,
    })
    .onConflict(trx.raw(AUTHOR_KEY))
    .merge(['text', 'updated_at'])
    .returning('*')) as ChatMessageRow[];
  return row!;
}

/**
 * The person writes in an item's chat (from its page). When the item is a task whose agent
 * last posted with `needsInput` and the person has not answered since, this message is the
 * answer: `task.awaitingAgent` goes out with reason `reply`, naming that agent. Reading one's
 * own chat marks the agents' messages read.
 */
export async function postPersonMessage(
  db: Knex,
  item: Pick<ItemDbRow, 'id' | 'title'>,
  list: Pick<ListRow, 'properties'>,
  person: { id: string; name: string },
  text: string,
): Promise<{ row: ChatMessageRow; released: boolean }> {
  return db.transaction(async (trx) => {
    const { sessionId, at } = await stampNext(trx, item.id);
    const latest = (await trx('chat_messages').where({ item_id: item.id }).whereIn('author_kind', ['agent', 'person']).orderBy('created_at', 'desc').first()) as
      | ChatMessageRow
      | undefined;
    const answers = latest?.author_kind === 'agent' && latest.needs_input;
    const [row] = (await trx('chat_messages')
      .insert({
        item_id: item.id,
        session_id: sessionId,
        author_kind: 'person',
        author_name: person.name,
        author_user_id: person.id,
        text,
        created_at: at,
        updated_at: at,
        read_at: at,
      })
      .returning('*')) as ChatMessageRow[];
    await trx('chat_messages').where({ item_id: item.id }).whereNot({ author_kind: 'person' }).whereNull('read_at').update({ read_at: at });
    await trx('activity').insert({
      user_id: person.id,
      action: 'chat.replied',
      summary: `Wrote in the chat of '${item.title ?? '(untitled)'}'`.slice(0, 300),
      item_id: item.id,
      via_connection: false,
    });
    const released = Boolean(answers && keepsStatus(list));
    if (released) await emitAwaitingAgent(trx, item, 'reply', latest!.author_name, at);
    return { row: row!, released };
  });
}

/** Marks the agents' and the service's messages on an item read (the person opened it). */
export async function markChatRead(db: Knex, itemId: string, at: Date): Promise<number> {
  return db('chat_messages').where({ item_id: itemId }).whereNot({ author_kind: 'person' }).whereNull('read_at').update({ read_at: at });
}

/** Every message of an item's chat, oldest first, with its read state (for the item page). */
export async function chatForPage(db: Knex, itemId: string, limit = 500): Promise<ChatMessageRow[]> {
  const rows = (await db('chat_messages').where({ item_id: itemId }).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit)) as ChatMessageRow[];
  return rows.reverse();
}

export interface ConversationLine {
  messageId: string;
  itemId: string;
  itemTitle: string | null;
  agentName: string;
  text: string;
  needsInput: boolean;
  unread: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The person's main conversation: one line per agent post and per message of the service
 * (an automation's run), newest first, across every live item they reach (their own and
 * those shared with them).
 */
export async function mainConversation(db: Knex, userId: string, limit = 100): Promise<ConversationLine[]> {
  const rows = (await db('chat_messages as m')
    .join('items as i', 'i.id', 'm.item_id')
    .whereIn('m.author_kind', ['agent', 'service'])
    .whereNull('i.deleted_at')
    .where((q) =>
      q.where('i.owner_id', userId).orWhereExists(function sharedWith(this: Knex.QueryBuilder) {
        this.select(db.raw('1'))
          .from('shares as s')
          .where('s.recipient_id', userId)
          .andWhere((s) => s.whereRaw('s.item_id = i.id').orWhereRaw('s.list_id = i.list_id'));
      }),
    )
    .orderBy('m.created_at', 'desc')
    .limit(limit)
    .select('m.id', 'm.item_id', 'i.title', 'm.author_name', 'm.text', 'm.needs_input', 'm.read_at', 'm.created_at', 'm.updated_at')) as {
    id: string;
    item_id: string;
    title: string | null;
    author_name: string;
    text: string;
    needs_input: boolean;
    read_at: Date | null;
    created_at: Date;
    updated_at: Date;
  }[];
  return rows.map((r) => ({
    messageId: r.id,
    itemId: r.item_id,
    itemTitle: r.title,
    agentName: r.author_name,
    text: r.text,
    needsInput: r.needs_input,
    unread: r.read_at === null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }));
}
