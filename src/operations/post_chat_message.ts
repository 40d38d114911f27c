import type { Handler } from '../core/context.js';
import { loadAccessible } from '../domain/items/items.js';
import { DEFAULT_AGENT_NAME, postAgentMessage } from '../domain/chat/chat.js';
import { recordActivity } from '../domain/changes/activity.js';
import { invalid, notFound } from '../core/errors.js';

/**
 * POST /items/{id}/messages: the calling agent posts in an item's chat. The person sees it
 * unread on the item's page and in their main conversation; the activity log records it.
 */
export const post_chat_message: Handler<'post_chat_message'> = async (ctx, input) => {
  const { db, principal } = ctx;
  const item = (await loadAccessible(db, principal.userId, [input.id])).get(input.id);
  if (!item) throw notFound(`No item ${input.id} in your workspace (it may be in the trash: list_deleted shows it).`);
  if (input.message.trim() === '') throw invalid('message is empty; send the Markdown text to post.', 'message');
  const agentName = input.agentName?.trim() || DEFAULT_AGENT_NAME;
  const { row } = await db.transaction(async (trx) => {
    const posted = await postAgentMessage(trx, input.id, {
      text: input.message,
      agentName,
      needsInput: input.needsInput ?? false,
      messageKey: input.messageKey ?? null,
      userId: principal.userId,
    });
    const title = item.row.title ?? '(untitled)';
    await recordActivity(trx, principal, {
      action: posted.updated ? 'chat.updated' : 'chat.posted',
      summary: `${agentName} ${posted.updated ? 'updated its message' : 'posted'} in the chat of '${title}'${input.needsInput ? ' (waits on your answer)' : ''}`,
      itemId: input.id,
      listId: item.row.list_id,
    });
    return posted;
  });
  return { id: row.id, sessionId: row.session_id, createdAt: row.created_at.toISOString() };
};
