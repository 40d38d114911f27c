/** The chats of an import, written in its list's transaction. */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { PlanItem } from './import-plan.js';

/** Adds the plan's chat messages; on an item that was there already, a message with the same time and text is not added again. */
export async function writeChats(trx: Knex, ownerId: string, targets: { itemId: string; item: PlanItem; isNew: boolean }[]): Promise<void> {
  const withChat = targets.filter((t) => t.item.chat.length > 0);
  if (withChat.length === 0) return;
  const present = new Map<string, { session: string; keys: Set<string> }>();
  const old = withChat.filter((t) => !t.isNew).map((t) => t.itemId);
  if (old.length) {
    const rows = (await trx('chat_messages').whereIn('item_id', old).orderBy('created_at').select('item_id', 'session_id', 'created_at', 'text')) as {
      item_id: string;
      session_id: string;
      created_at: Date;
      text: string;
    }[];
    for (const r of rows) {
      const entry = present.get(r.item_id) ?? { session: r.session_id, keys: new Set<string>() };
      entry.session = r.session_id;
      entry.keys.add(`${r.created_at.toISOString()}\n${r.text}`);
      present.set(r.item_id, entry);
    }
  }
  const inserts: Record<string, unknown>[] = [];
  const base = Date.now();
  for (const { itemId, item } of withChat) {
    const entry = present.get(itemId) ?? { session: randomUUID(), keys: new Set<string>() };
    item.chat.forEach((m, i) => {
      // Messages without a time (a Todoist comment) follow each other a millisecond apart, in file order.
      const at = m.createdAt ? new Date(m.createdAt) : new Date(base + i);
      if (m.createdAt && entry.keys.has(`${at.toISOString()}\n${m.text}`)) return;
      inserts.push({
        item_id: itemId,
        session_id: entry.session,
        author_kind: m.authorKind,
        author_name: m.authorName,
        author_user_id: m.authorKind === 'person' ? ownerId : null,
        text: m.text,
        needs_input: m.needsInput,
        created_at: at,
        updated_at: at,
        read_at: at,
      });
    });
  }
  for (let i = 0; i < inserts.length; i += 500) await trx('chat_messages').insert(inserts.slice(i, i + 500));
}
