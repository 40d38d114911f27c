/**
 * An item's `guidance`: how to work it now, for an agent — its status, what the person wrote
 * in its chat since an agent last posted, and where the work goes.
 * @see openapi/openapi.yaml components/schemas/Item (guidance)
 */
import type { Knex } from 'knex';
import type { ChatRow, ItemDbRow } from '../items/row-types.js';

import { keepsStatus, type ListRow } from '../lists/lists.js';

/** A chat message as guidance reads it. */

/** Builds the guidance text for one item from its row, list and chat. */
export async function itemGuidance(db: Knex, row: ItemDbRow, list: ListRow, now: Date, loadedChat?: ChatRow[]): Promise<string> {
  // The last 50 messages, newest first (get_item reads them with the item).
  const chat =
    loadedChat ??
    ((await db('chat_messages')
      .where({ item_id: row.id })
      .orderBy('created_at', 'desc')
      .limit(50)
      .select('author_kind', 'author_name', 'text', 'needs_input')) as ChatRow[]);
  const lines: string[] = [];
  if (keepsStatus(list)) {
    const status = row.task_status ?? 'todo';
    const due = row.due_at ? ` due ${row.due_at.toISOString()}${status !== 'completed' && row.due_at < now ? ' (overdue)' : ''}` : ' with no due date';
    lines.push(
      status === 'completed'
        ? `This task is completed${row.completed_at ? ` (${row.completed_at.toISOString()})` : ''}.`
        : `This task is ${status === 'inProgress' ? 'in progress' : 'to do'},${due}.`,
    );
  } else {
    lines.push(`This is an item on the list '${list.name}'.`);
  }
  if (row.assigned_agent) lines.push(`It is assigned to the agent '${row.assigned_agent}'.`);
  if (row.archived_at) lines.push('It is archived: hidden from lists until update_items sets archived false.');
  const lastAgent = chat.findIndex((m) => m.author_kind === 'agent');
  const sincePerson = (lastAgent === -1 ? chat : chat.slice(0, lastAgent)).filter((m) => m.author_kind === 'person').reverse();
  if (chat.length === 0) lines.push('Its chat is empty.');
  else if (sincePerson.length) {
    const quoted = sincePerson
      .slice(-3)
      .map((m) => `"${m.text.length > 300 ? `${m.text.slice(0, 297)}...` : m.text}"`)
      .join(' then ');
    lines.push(
      `${lastAgent === -1 ? 'The person wrote in its chat' : 'Since an agent last posted, the person wrote'}: ${quoted}. Read it with read_chat_messages and answer with post_chat_message.`,
    );
  } else if (lastAgent !== -1 && chat[lastAgent]!.needs_input) {
    lines.push(`${chat[lastAgent]!.author_name} asked the person a question in its chat and is waiting for the answer.`);
  } else {
    lines.push('Nothing new from the person in its chat since an agent last posted.');
  }
  if (row.guidance_note) lines.push(row.guidance_note);
  if (list.instructions) lines.push(`The list's standing rules: ${list.instructions.replace(/\s*\n\s*/g, '; ')}`);
  lines.push(
    'Put results in the body (update_items edits against get_item forEditing handles), tell the person with post_chat_message, and set taskStatus when the state changes.',
  );
  return lines.join(' ');
}
