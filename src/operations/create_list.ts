import type { Handler } from '../core/context.js';
import { listDto, type ListRow } from '../domain/lists.js';
import { buildProperties, taskColumns } from '../domain/properties.js';
import { recordActivity } from '../domain/activity.js';

/**
 * POST /lists. `template: tasks` gives the task columns and ignores `properties`; a list
 * with no properties is a notes list and reads best as a list, the others as a table.
 */
export const create_list: Handler<'create_list'> = async ({ db, principal }, input) => {
  const titleLabel = blankToNull(input.titleLabel);
  const properties = input.template === 'tasks' ? taskColumns() : buildProperties(input.properties ?? [], [], 'properties', titleLabel);
  return db.transaction(async (trx) => {
    const [row] = (await trx('lists')
      .insert({
        owner_id: principal.userId,
        name: input.name.trim() || input.name,
        icon: blankToNull(input.icon),
        instructions: blankToNull(input.instructions),
        title_label: titleLabel,
        layout: input.template === 'tasks' || properties.length === 0 ? 'list' : 'table',
        properties: JSON.stringify(properties),
      })
      .returning('*')) as ListRow[];
    await recordActivity(trx, principal, { action: 'list.created', summary: `Created list '${row!.name}'`, listId: row!.id });
    return listDto(row!, 0);
  });
};

function blankToNull(value: string | null | undefined): string | null {
  return value === undefined || value === null || value.trim() === '' ? null : value;
}
