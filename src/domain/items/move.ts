import type { Knex } from 'knex';
import type { OpInput, OpOutput, Principal } from '../../core/context.js';
import { resolveList, type ListRow } from '../lists/lists.js';
import { itemRowDto, type ItemDbRow } from './items.js';
import { matchProperties, moveValues } from './move-values.js';
import { isUuid } from '../ids.js';
import { recordActivity } from '../changes/activity.js';
import { liveSubtaskIds } from './subtasks.js';
import type { Property } from '../lists/properties.js';
import type { StoredValues } from '../lists/values.js';
import { askingConfirmation } from '../../core/confirmation.js';
import { whereInReach } from '../reach.js';

type Result = OpOutput<'move_items'>;

/**
 * Moves items to another list, in the caller's transaction (move_items, and the moveOverdue
 * automation action, so both follow the same rules). Each item keeps its id, title, body, chat, history, status and due date
 * (the task columns ride along unseen onto a list that keeps neither, and show again on one
 * that keeps them); only its list and its values change. When values would be dropped and
 * `acknowledgeDataLoss` is not true, the answer is a preview and nothing moves.
 * Ids that are not the caller's own live items are refused; the rest move, each parent with its
 * subtasks (a subtask moved without its parent stops being one).
 */
export async function moveItems(trx: Knex.Transaction, principal: Principal, input: OpInput<'move_items'>, now: Date): Promise<Result> {
  const asked = [...new Set(input.itemIds)];
  const target = await resolveList(trx, principal.userId, input.listId);
  // A parent's subtasks move with it.
  const ids = [...new Set([...asked, ...(await liveSubtaskIds(trx, principal.userId, asked.filter(isUuid)))])];
  const ownLive = () =>
    whereInReach(trx('items').whereIn('id', ids.filter(isUuid)).where({ owner_id: principal.userId }).whereNull('deleted_at'), 'list_id').orderBy('id');
  // Lists first, then items, in the order update_list and delete_list take them, so that they
  // and concurrent moves wait for each other instead of deadlocking; lists in id order.
  const seen = (await ownLive().select('list_id')) as { list_id: string }[];
  const lockLists = async (listIds: string[]) =>
    (await trx('lists')
      .whereIn('id', [...new Set(listIds)])
      .orderBy('id')
      .forUpdate()) as ListRow[];
  const lists = await lockLists([target.id, ...seen.map((r) => r.list_id)]);
  const own = (await ownLive().forUpdate()) as ItemDbRow[];
  // An item moved by someone else meanwhile: lock its list too.
  const late = own.filter((r) => !lists.some((l) => l.id === r.list_id)).map((r) => r.list_id);
  if (late.length) lists.push(...(await lockLists(late)));
  const refused = asked.filter((id) => !own.some((r) => r.id === id));
  const destination = lists.find((l) => l.id === target.id)!;
  const properties: Property[] = destination.properties.map((p) => ({ ...p, ...(p.options ? { options: p.options.map((o) => ({ ...o })) } : {}) }));

  const moves: { row: ItemDbRow; values: StoredValues }[] = [];
  const droppedValues: Result['droppedValues'] = [];
  for (const row of own) {
    if (row.list_id === destination.id) {
      moves.push({ row, values: row.values });
      continue;
    }
    const source = lists.find((l) => l.id === row.list_id)!.properties;
    const moved = moveValues(row.values ?? {}, source, matchProperties(source, properties));
    moves.push({ row, values: moved.values });
    droppedValues.push(...moved.dropped.map((d) => ({ itemId: row.id, ...d })));
  }
  const base = { listId: destination.id, listName: destination.name, droppedValues, refused };
  if (droppedValues.length > 0 && input.acknowledgeDataLoss !== true)
    return askingConfirmation(
      { ...base, preview: true, items: [] },
      { field: 'acknowledgeDataLoss', question: dropQuestion(own.length, destination.name, droppedValues) },
    );

  const changing = moves.filter((m) => m.row.list_id !== destination.id);
  if (changing.length > 0) {
    await trx.raw(
      // GREATEST: a clock read to the millisecond must never make a moved item look older.
      `UPDATE items AS i SET list_id = ?::uuid, "values" = v.vals::jsonb, updated_at = GREATEST(?::timestamptz, i.updated_at + interval '1 microsecond')
         FROM (VALUES ${changing.map(() => '(?::uuid, ?::text)').join(', ')}) AS v(id, vals)
        WHERE i.id = v.id`,
      [destination.id, now, ...changing.flatMap((m) => [m.row.id, JSON.stringify(m.values)])],
    );
    // A subtask moved without its parent leaves it: it is no longer a subtask.
    const movedIds = changing.map((m) => m.row.id);
    await trx('items').whereIn('id', movedIds).whereNotNull('parent_id').whereNotIn('parent_id', movedIds).update({ parent_id: null });
    if (JSON.stringify(properties) !== JSON.stringify(destination.properties)) {
      await trx('lists')
        .where({ id: destination.id })
        .update({ properties: JSON.stringify(properties), updated_at: now });
    }
    await recordActivity(trx, principal, {
      action: 'items.moved',
      summary: `Moved ${changing.length} item${changing.length === 1 ? '' : 's'} to '${destination.name}': ${changing
        .map((m) => m.row.title ?? '(untitled)')
        .slice(0, 5)
        .join(', ')}`,
      listId: destination.id,
    });
  }
  const rows = (await trx('items').whereIn(
    'id',
    moves.map((m) => m.row.id),
  )) as ItemDbRow[];
  const order = new Map(ids.map((id, i) => [id, i] as const));
  rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  const list = { ...destination, properties };
  return { ...base, preview: false, items: rows.map((r) => itemRowDto(r, list)) };
}

/** The preview of a move as a question for the person: how many items, where, and the values they lose. */
function dropQuestion(count: number, listName: string, dropped: Result['droppedValues']): string {
  const shown = dropped.slice(0, 5).map((d) => `${d.property} ${Array.isArray(d.value) ? d.value.map((v) => `'${v}'`).join(', ') : `'${String(d.value)}'`}`);
  const more = dropped.length > shown.length ? `, and ${dropped.length - shown.length} more` : '';
  return `Move ${count} item${count === 1 ? '' : 's'} to '${listName}'? The list has no place for ${dropped.length === 1 ? 'this value' : `these ${dropped.length} values`}, which would be lost: ${shown.join('; ')}${more}.`;
}
