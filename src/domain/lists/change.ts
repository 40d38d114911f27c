/**
 * Changing a list (PATCH /lists/{id}): checking the call against the list, the list as it
 * will be, and the value migrations its property changes need, run over the list's items in
 * batches inside the caller's transaction.
 * @see openapi/openapi.yaml update_list
 */
import type { Knex } from 'knex';
import { buildOptions, buildProperties, isReserved, isSelectType, type Property } from './properties.js';
import { resolveList, type ListRow } from './lists.js';
import { recordActivity } from '../changes/activity.js';
import { deletedValue, ValueMigration, type Migrated, type OwnType, type StoredValue } from './retype.js';
import { invalid, notFound, toolError, shown } from '../../core/errors.js';
import type { OpInput, Principal } from '../../core/context.js';

export type ListChangeInput = Omit<OpInput<'update_list'>, 'id'>;

/** A list holds at most this many properties, so that one columnOrder can name them all. */
export const MAX_PROPERTIES = 60;
/** Items read and rewritten per round trip while values migrate. */
export const MIGRATION_BATCH = 500;

/** One property whose values change: how each value migrates, and words for the warning. */
export interface PropertyMigration {
  propertyId: string;
  /** The property's name before the call. */
  propertyName: string;
  /** What happens to the property, in words: "retyping 'Pages' from text to number". */
  change: string;
  migrate(value: StoredValue | null): Migrated;
}

export interface ListChangePlan {
  /** Columns of `lists` to set (besides properties). */
  columns: Partial<Pick<ListRow, 'name' | 'icon' | 'instructions' | 'title_label' | 'layout'>>;
  /** The new property list, or null when the call changes no property. */
  properties: Property[] | null;
  migrations: PropertyMigration[];
  /** What the call changes, in words, for the activity log. */
  summary: string[];
}

const TITLE_REFUSAL = 'The title column is not a property: rename its heading with titleLabel; it is never retyped, removed or hidden.';

/**
 * Checks an update_list call against `list` and works out the list as it will be. What the
 * schema lets through but the list refuses is `toolError`; `invalid` only backs up the schema.
 * Select properties that a retype turns text into get their new options while values migrate.
 */
export function planListChange(list: ListRow, input: ListChangeInput): ListChangePlan {
  const columns: ListChangePlan['columns'] = {};
  const summary: string[] = [];
  if (input.name !== undefined && input.name !== null) {
    const name = input.name.trim();
    if (!name) throw invalid(`name is blank; send the list's new name, or leave name out to keep '${list.name}'.`, 'name');
    if (name !== list.name) summary.push(`renamed to '${name}'`);
    columns.name = name;
  }
  if (input.icon !== undefined && input.icon !== null) {
    columns.icon = input.icon.trim() === '' ? null : input.icon.trim();
    summary.push(columns.icon ? 'icon' : 'icon removed');
  }
  if (input.instructions !== undefined && input.instructions !== null) {
    columns.instructions = input.instructions.trim() === '' ? null : input.instructions;
    summary.push(columns.instructions ? 'instructions replaced' : 'instructions cleared');
  }
  if (input.titleLabel !== undefined && input.titleLabel !== null) {
    columns.title_label = input.titleLabel.trim() === '' ? null : input.titleLabel.trim();
    summary.push(columns.title_label ? `title column '${columns.title_label}'` : 'title column reset to Title');
  }
  if (input.layout !== undefined && input.layout !== null) {
    columns.layout = input.layout;
    summary.push(`layout ${input.layout}`);
  }
  const titleLabel = columns.title_label !== undefined ? columns.title_label : list.title_label;

  const touchesProperties = Boolean(input.updateProperty || input.deletePropertyIds?.length || input.addProperties?.length || input.columnOrder);
  if (!touchesProperties) {
    checkTitleLabel(titleLabel, list.properties);
    return { columns, properties: null, migrations: [], summary };
  }

  let properties = list.properties.map((p) => ({ ...p, ...(p.options ? { options: p.options.map((o) => ({ ...o })) } : {}) }));
  const migrations: PropertyMigration[] = [];

  const update = input.updateProperty;
  if (update) changeProperty(list, properties, update, titleLabel, migrations, summary);

  const deleteIds = [...new Set(input.deletePropertyIds ?? [])];
  for (const id of deleteIds) {
    if (id.trim().toLowerCase() === 'title') throw toolError(TITLE_REFUSAL);
    const property = properties.find((p) => p.id === id);
    if (!property) throw toolError(`deletePropertyIds names '${id}', which is not a property of list '${list.name}'; ${validIds(list)}.`);
    if (isReserved(id))
      throw toolError(`'${property.name}' is the reserved ${id} task column: it can be renamed, never removed; take '${id}' out of deletePropertyIds.`);
    if (id === update?.id) throw toolError(`'${id}' is both in updateProperty and in deletePropertyIds; either change it or delete it.`);
    const name = list.properties.find((p) => p.id === id)!.name;
    migrations.push({ propertyId: id, propertyName: name, change: `deleting '${name}'`, migrate: (v) => deletedValue(v, property) });
    summary.push(`property '${name}' deleted`);
  }
  properties = properties.filter((p) => !deleteIds.includes(p.id));

  if (input.columnOrder) {
    properties = reorder(properties, input.columnOrder);
    summary.push('columns reordered');
  }

  if (input.addProperties?.length) {
    const added = buildProperties(input.addProperties, properties, 'addProperties', titleLabel);
    properties = [...properties, ...added];
    summary.push(`added ${added.map((p) => `'${p.name}'`).join(', ')}`);
  }
  if (properties.length > MAX_PROPERTIES) {
    throw toolError(
      `List '${list.name}' would have ${properties.length} properties; a list holds at most ${MAX_PROPERTIES}: add fewer or delete some in the same call.`,
    );
  }
  checkTitleLabel(titleLabel, properties);
  return { columns, properties, migrations, summary };
}

/** The ids a refusal lists, so the caller can correct the call. */
function validIds(list: ListRow): string {
  return `valid ids: ${list.properties.map((p) => `${p.id} ('${p.name}')`).join(', ') || '(this list has no properties)'}`;
}

/**
 * Applies `updateProperty` to `properties` in place: a new name (unique, not the title
 * column's), type or options; a retype or new options adds the migration of its values.
 */
function changeProperty(
  list: ListRow,
  properties: Property[],
  update: NonNullable<ListChangeInput['updateProperty']>,
  titleLabel: string | null,
  migrations: PropertyMigration[],
  summary: string[],
): void {
  if (update.id.trim().toLowerCase() === 'title') throw toolError(TITLE_REFUSAL);
  const index = properties.findIndex((p) => p.id === update.id);
  const before = properties[index];
  if (!before) throw toolError(`updateProperty.id '${update.id}' is not a property of list '${list.name}'; ${validIds(list)}.`);
  const after: Property = { ...before, ...(before.options ? { options: before.options.map((o) => ({ ...o })) } : {}) };
  if (update.name !== undefined && update.name !== null) {
    const name = update.name.trim();
    if (!name) throw invalid(`updateProperty.name is blank; send the new name, or leave it out to keep '${before.name}'.`, 'updateProperty.name');
    checkName(
      name,
      properties.filter((p) => p.id !== before.id),
      titleLabel,
      'updateProperty.name',
    );
    if (name !== before.name) summary.push(`property '${before.name}' renamed to '${name}'`);
    after.name = name;
  }
  const retype = update.type !== undefined && update.type !== null && update.type !== before.type;
  const reoption = update.options !== undefined && update.options !== null;
  if (isReserved(before.id) && retype) {
    throw toolError(`'${before.name}' is the reserved ${before.id} task column: it can be renamed, never retyped; leave out updateProperty.type.`);
  }
  if (before.type === 'status' && reoption) {
    throw toolError(
      `'${before.name}' is the reserved status task column: its options (todo, inProgress, completed) are fixed; leave out updateProperty.options.`,
    );
  }
  const type = retype ? update.type! : before.type;
  if (reoption && !isSelectType(type)) {
    throw toolError(
      `updateProperty.options apply only to select and multiSelect properties; '${after.name}' is ${type}: leave out options, or retype it to select or multiSelect.`,
    );
  }
  if (retype || reoption) {
    after.type = type;
    if (!isSelectType(type)) delete after.options;
    else if (reoption) after.options = buildOptions(update.options, before.options ?? []);
    else if (!isSelectType(before.type)) after.options = [];
    const migration = new ValueMigration(before as Property & { type: OwnType }, after as Property & { type: OwnType });
    const count = after.options ? `${after.options.length} option${after.options.length === 1 ? '' : 's'}` : '';
    const retyping = `retyping '${before.name}' from ${before.type} to ${type}`;
    const change = retype && reoption ? `${retyping} with ${count}` : retype ? retyping : `re-optioning '${before.name}' to ${count}`;
    migrations.push({ propertyId: before.id, propertyName: before.name, change, migrate: (v) => migration.migrate(v) });
    summary.push(change);
  }
  properties[index] = after;
}

/** A property name must be unique in the list and must not be the title column's. */
function checkName(name: string, others: Property[], titleLabel: string | null, field: string): void {
  const lower = name.toLowerCase();
  if (lower === 'title' || lower === (titleLabel ?? 'Title').toLowerCase()) {
    throw toolError(`${field} '${name}' would duplicate the title column; every item already has a title (rename its heading with titleLabel).`);
  }
  const clash = others.find((p) => p.name.toLowerCase() === lower);
  if (clash) throw toolError(`${field} '${name}' duplicates the property ${clash.id} ('${clash.name}'); names must be unique in a list.`);
}

function checkTitleLabel(titleLabel: string | null, properties: Property[]): void {
  const clash = titleLabel && properties.find((p) => p.name.toLowerCase() === titleLabel.toLowerCase());
  if (clash) throw toolError(`titleLabel '${titleLabel}' is the name of the property ${clash.id}; the title column needs a heading of its own.`);
}

/** The properties in `order`, which must name each of them exactly once by id. */
function reorder(properties: Property[], order: string[]): Property[] {
  const ids = properties.map((p) => p.id);
  const missing = ids.filter((id) => !order.includes(id));
  const unknown = [...new Set(order.filter((id) => !ids.includes(id)))];
  const twice = [...new Set(order.filter((id, i) => order.indexOf(id) !== i))];
  if (missing.length || unknown.length || twice.length) {
    const problems = [
      missing.length ? `missing ${missing.map((id) => `${id} ('${properties.find((p) => p.id === id)!.name}')`).join(', ')}` : '',
      unknown.length
        ? `not a property of this list ${unknown.map((id) => shown(id)).join(', ')}${unknown.some((id) => id.toLowerCase() === 'title') ? ' (the title column is always first and is not named)' : ''}`
        : '',
      twice.length ? `named twice ${twice.join(', ')}` : '',
    ].filter(Boolean);
    throw toolError(
      `columnOrder must name every property the list keeps exactly once, by id (properties added in the same call go last): ${problems.join('; ')}. Send e.g. ${JSON.stringify(ids)}.`,
    );
  }
  return order.map((id) => properties.find((p) => p.id === id)!);
}

/** What a property change would lose or has lost: in how many items, with a few of the values. */
export interface LostValues {
  propertyId: string;
  propertyName: string;
  change: string;
  items: number;
  examples: string[];
}

/**
 * Runs `migrations` over every item on the list (live, archived and trashed alike, so that a
 * restored item fits its list), in batches by id. Rewrites changed items and moves their
 * `updated_at`; the items trigger stamps the changes feed. Returns what was lost.
 */
export async function migrateValues(trx: Knex.Transaction, listId: string, migrations: PropertyMigration[], now: Date): Promise<LostValues[]> {
  if (migrations.length === 0) return [];
  const lost = new Map<string, LostValues>(
    migrations.map((m) => [m.propertyId, { propertyId: m.propertyId, propertyName: m.propertyName, change: m.change, items: 0, examples: [] }]),
  );
  const ids = migrations.map((m) => m.propertyId);
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = (await trx('items')
      .select('id', 'values')
      .where('list_id', listId)
      .where('id', '>', after)
      .whereRaw('"values" \\?| ?::text[]', [ids])
      .orderBy('id')
      .limit(MIGRATION_BATCH)
      .forUpdate()) as { id: string; values: Record<string, StoredValue | null> }[];
    if (rows.length === 0) break;
    const changed: { id: string; values: Record<string, StoredValue> }[] = [];
    for (const row of rows) {
      const next: Record<string, StoredValue | null> = { ...row.values };
      let differs = false;
      for (const m of migrations) {
        if (!(m.propertyId in row.values)) continue;
        const stored = row.values[m.propertyId] ?? null;
        const result = m.migrate(stored);
        if (result.value === undefined) delete next[m.propertyId];
        else next[m.propertyId] = result.value;
        if (JSON.stringify(result.value) !== JSON.stringify(stored)) differs = true;
        if (result.lost.length) {
          const entry = lost.get(m.propertyId)!;
          entry.items += 1;
          for (const text of result.lost) if (entry.examples.length < 3 && !entry.examples.includes(clip(text))) entry.examples.push(clip(text));
        }
      }
      if (differs) changed.push({ id: row.id, values: next as Record<string, StoredValue> });
    }
    if (changed.length) {
      await trx.raw(
        // GREATEST: a clock read to the millisecond must never make a changed item look older.
        `UPDATE items AS i SET "values" = v.vals::jsonb, updated_at = GREATEST(?::timestamptz, i.updated_at + interval '1 microsecond')
           FROM (VALUES ${changed.map(() => '(?::uuid, ?::text)').join(', ')}) AS v(id, vals)
          WHERE i.id = v.id`,
        [now, ...changed.flatMap((c) => [c.id, JSON.stringify(c.values)])],
      );
    }
    after = rows[rows.length - 1]!.id;
    if (rows.length < MIGRATION_BATCH) break;
  }
  return [...lost.values()].filter((l) => l.items > 0);
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** The preview's sentence: what would be lost, in how many items, and how to go ahead. */
export function lossWarning(lost: LostValues[]): string {
  const parts = lost.map((l) => {
    const e = l.examples.length ? ` (e.g. ${l.examples.map((x) => `'${x}'`).join(', ')})` : '';
    return `${l.change} loses values in ${l.items} item${l.items === 1 ? '' : 's'}${e}`;
  });
  return `Nothing was written: ${parts.join('; ')}. Repeat the same call with acknowledgeDataLoss: true to apply it.`;
}

/** The preview as a question for the person: what changes, and what is lost for good. */
export function lossQuestion(listName: string, lost: LostValues[]): string {
  const parts = lost.map((l) => {
    const e = l.examples.length ? ` (such as ${l.examples.map((x) => `'${x}'`).join(', ')})` : '';
    return `${l.change} clears values in ${l.items} item${l.items === 1 ? '' : 's'}${e}`;
  });
  return `In the list '${listName}', ${parts.join('; ')}. Those values cannot be brought back. Make the change?`;
}

/** Carries a preview out of the transaction, so that everything the change did is rolled back. */
class PreviewAnswer {
  constructor(
    readonly list: ListRow,
    readonly lost: LostValues[],
  ) {}
}

/**
 * Changes a list in one transaction with its row locked. When the change would lose values and
 * `acknowledgeDataLoss` is not true, the transaction is rolled back and the answer is the list
 * as it was with the values that would be lost: a preview writes nothing and names exactly what
 * the acknowledged call will drop.
 */
export async function changeList(
  db: Knex,
  principal: Principal,
  id: string,
  change: ListChangeInput,
  now: Date,
): Promise<{ list: ListRow; preview: LostValues[] | null }> {
  try {
    const list = await db.transaction(async (trx) => {
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
    return { list, preview: null };
  } catch (error) {
    if (!(error instanceof PreviewAnswer)) throw error;
    return { list: error.list, preview: error.lost };
  }
}
