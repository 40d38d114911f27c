import type { Knex } from 'knex';
import type { Handler, OpOutput } from '../core/context.js';
import { listDto, openItemCounts, resolveList, type ListRow } from '../domain/lists.js';
import { lossWarning, migrateValues, planListChange, type LostValues } from '../domain/list-change.js';
import { recordActivity } from '../domain/activity.js';
import { notFound } from '../core/errors.js';

/** Carries a preview out of the transaction, so that everything the call did is rolled back. */
class PreviewAnswer {
  constructor(
    readonly list: ListRow,
    readonly lost: LostValues[],
  ) {}
}

/**
 * PATCH /lists/{id}. The change runs in one transaction with the list row locked; when it
 * would lose values and `acknowledgeDataLoss` is not true, the transaction is rolled back and
 * the answer is a preview, so a preview writes nothing and names exactly what the
 * acknowledged call will drop.
 */
export const update_list: Handler<'update_list'> = async ({ db, principal, services }, input) => {
  const { id, ...change } = input;
  const now = services.now();
  try {
    const row = await db.transaction(async (trx) => {
      const found = await resolveList(trx, principal.userId, id);
      const list = (await trx('lists').where({ id: found.id }).whereNull('deleted_at').forUpdate().first()) as ListRow | undefined;
      if (!list) throw notFound(`list ${found.id} was deleted while this change was being made; restore it from the trash first.`);
      const plan = planListChange(list, change);
      const lost = await migrateValues(trx, list.id, plan.migrations, now);
      if (lost.length > 0 && change.acknowledgeDataLoss !== true) throw new PreviewAnswer(list, lost);
      const [updated] = (await trx('lists')
        .where({ id: list.id })
        .update({ ...plan.columns, ...(plan.properties ? { properties: JSON.stringify(plan.properties) } : {}), updated_at: now })
        .returning('*')) as ListRow[];
      if (plan.summary.length) {
        await recordActivity(trx, principal, {
          action: 'list.updated',
          summary: `Changed list '${updated!.name}': ${plan.summary.join(', ')}`,
          listId: list.id,
        });
      }
      return updated!;
    });
    return { ...(await dto(db, row)), preview: false };
  } catch (error) {
    if (!(error instanceof PreviewAnswer)) throw error;
    return {
      ...(await dto(db, error.list)),
      preview: true,
      warning: lossWarning(error.lost),
      lostValues: error.lost.map(({ propertyId, propertyName, items, examples }) => ({ propertyId, propertyName, items, examples })),
    };
  }
};

async function dto(db: Knex, row: ListRow): Promise<OpOutput<'update_list'>> {
  const counts = await openItemCounts(db, [row.id]);
  return listDto(row, counts.get(row.id) ?? 0);
}
