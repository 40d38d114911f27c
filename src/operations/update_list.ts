import type { Handler } from '../core/context.js';
import { listDto, openItemCounts } from '../domain/lists/lists.js';
import { changeList, lossQuestion, lossWarning } from '../domain/lists/change.js';
import { askingConfirmation } from '../core/confirmation.js';

/**
 * PATCH /lists/{id}. A change that would lose values answers a preview (nothing written)
 * unless `acknowledgeDataLoss` is true; the preview asks that confirmation (core/confirmation.ts).
 */
export const update_list: Handler<'update_list'> = async ({ db, principal, services }, input) => {
  const { id, ...change } = input;
  const { list, preview } = await changeList(db, principal, id, change, services.now());
  const counts = await openItemCounts(db, [list.id]);
  const dto = listDto(list, counts.get(list.id) ?? 0);
  if (preview === null) return { ...dto, preview: false };
  const answer = {
    ...dto,
    preview: true,
    warning: lossWarning(preview),
    lostValues: preview.map(({ propertyId, propertyName, items, examples }) => ({ propertyId, propertyName, items, examples })),
  };
  return askingConfirmation(answer, { field: 'acknowledgeDataLoss', question: lossQuestion(list.name, preview) });
};
