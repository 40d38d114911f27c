/**
 * One plan list's columns as the import writes them: its properties matched to the target's
 * (or added), each plan item as the columns of its row, and its subtasks linked at the end.
 * @see src/domain/transfer/import-run.ts
 */
import type { Knex } from 'knex';
import type { Downloads } from '../media/images.js';
import type { PlanItem, PlanList } from './import-plan.js';
import { rewriteBody } from './import-attachments.js';
import { shortId } from '../ids.js';
import { parseDueAt, TASK_STATUSES } from '../items/items.js';
import type { ListRow } from '../lists/lists.js';
import { buildOptions, isSelectType, type Property } from '../lists/properties.js';
import { parseRecurrence } from '../items/recurrence.js';
import { readReminder } from '../items/reminders.js';
import { normalizeLabels } from '../items/labels.js';
import { resolveValues, ValueError, withNewOptions, type StoredValues } from '../lists/values.js';

/** A plan property's match among a list's properties: the same id and type, else the same name and type. */
export function matchProperty(have: Property[], p: { id?: string; name: string; type: string }): Property | undefined {
  return (
    have.find((h) => p.id !== undefined && h.id === p.id && h.type === p.type) ??
    have.find((h) => h.name.toLowerCase() === p.name.toLowerCase() && h.type === p.type)
  );
}

/**
 * The target's properties with the plan list's: each plan property matched (by id and type, then
 * name and type) or added, select options added by label; `idOf` maps a plan key to its id.
 */
export function matchProperties(target: ListRow, list: PlanList, warnings: string[]): { properties: Property[]; idOf: Map<string, string> } {
  let properties = [...target.properties];
  const idOf = new Map<string, string>();
  for (const p of list.properties) {
    let found = matchProperty(properties, p);
    if (!found) {
      let name = p.name;
      if (
        properties.some((h) => h.name.toLowerCase() === name.toLowerCase()) ||
        ['title', (target.title_label ?? 'title').toLowerCase()].includes(name.toLowerCase())
      ) {
        name = `${p.name} (imported)`;
        warnings.push(`'${list.name}': a property '${p.name}' of another type is there already; the imported one is '${name}'.`);
      }
      const free = p.id && !properties.some((h) => h.id === p.id) ? p.id : shortId('p_');
      found = { id: free, name, type: p.type, ...(isSelectType(p.type) ? { options: [] } : {}) };
      properties.push(found);
    }
    if (isSelectType(found.type) && p.options?.length) {
      const have = found.options ?? [];
      const missing = p.options.filter((o) => !have.some((h) => h.label.toLowerCase() === o.label.toLowerCase()));
      if (missing.length) {
        const added = buildOptions(
          missing.map((o) => ({ label: o.label, ...(o.color !== undefined ? { color: o.color } : {}) })),
          [],
        ).map((o, i) => {
          const wanted = missing[i]!.id;
          return wanted && !have.some((h) => h.id === wanted) ? { ...o, id: wanted } : o;
        });
        const updated: Property = { ...found, options: [...have, ...added] };
        properties = properties.map((h) => (h.id === found!.id ? updated : h));
        found = updated;
      }
    }
    idOf.set(p.key, found.id);
  }
  return { properties, idOf };
}

/**
 * One plan item as the columns of its row: its values (a value the property refuses is left
 * out, with a warning), labels, and the task fields the target keeps; `droppedStatus` when the
 * item had a status or due date the target does not keep.
 */
export function itemColumns(
  item: PlanItem,
  label: string,
  c: {
    listName: string;
    properties: Property[];
    idOf: Map<string, string>;
    spellings: Map<string, string>;
    withStatus: boolean;
    withDue: boolean;
    w: { timeZone: string; now: Date; downloads: Downloads; warnings: string[] };
  },
): { values: StoredValues; record: Record<string, unknown>; properties: Property[]; droppedStatus: boolean } {
  const { listName, idOf, spellings, withStatus, withDue, w } = c;
  let properties = c.properties;
  let droppedStatus = false;
  const values: StoredValues = {};
  for (const [key, value] of Object.entries(item.values)) {
    const id = idOf.get(key);
    if (!id) continue;
    try {
      const resolved = resolveValues(properties, { [id]: value });
      properties = withNewOptions(properties, resolved.newOptions);
      const v = resolved.set[id];
      if (v !== undefined && v !== null) values[id] = v;
    } catch (err) {
      if (!(err instanceof ValueError)) throw err;
      w.warnings.push(`'${listName}', '${label}': ${err.message} The value was left out.`);
    }
  }
  const record: Record<string, unknown> = {
    title: item.title,
    body: rewriteBody(item, w.downloads),
    favorited: item.favorited,
    archived_at: item.archivedAt,
  };
  if (item.labels.length) {
    try {
      record.labels = normalizeLabels(item.labels, spellings);
    } catch (err) {
      if (!(err instanceof ValueError)) throw err;
      w.warnings.push(`'${listName}', '${label}': ${err.message} Its labels were left out.`);
    }
  }
  if (withStatus) {
    const status = item.taskStatus && TASK_STATUSES.includes(item.taskStatus) ? item.taskStatus : 'todo';
    record.task_status = status;
    record.completed_at = status === 'completed' ? (item.completedAt ?? w.now) : null;
    record.assigned_agent = item.assignedAgent;
  } else if (item.taskStatus || item.due) droppedStatus = true;
  if (withDue) {
    const due = item.due ? ('at' in item.due ? { dueAt: new Date(item.due.at), hasDueTime: true } : parseDueAt(item.due.date, w.timeZone)) : null;
    record.due_at = due?.dueAt ?? null;
    record.has_due_time = due ? due.hasDueTime : null;
    if (item.reminderAt) Object.assign(record, readReminder(item.reminderAt, (record.due_at as Date | null) ?? null, w.timeZone, w.now));
    if (item.recurrence) {
      try {
        record.recurrence = parseRecurrence(item.recurrence).rule;
      } catch (err) {
        if (!(err instanceof ValueError)) throw err;
        w.warnings.push(`'${listName}', '${label}': ${err.message} It does not repeat.`);
      }
    }
  }
  return { values, record, properties, droppedStatus };
}

/** Subtasks linked to their parent's new id, one level deep (a parent that is itself a subtask is not followed). */
export async function linkSubtasks(trx: Knex, list: PlanList, written: Map<string, string>, warnings: string[]): Promise<void> {
  const parentKeys = new Set(list.items.filter((i) => i.parentKey).map((i) => i.parentKey!));
  for (const item of list.items) {
    if (!item.parentKey || !item.key) continue;
    const child = written.get(item.key);
    const parent = written.get(item.parentKey);
    const nested = list.items.find((i) => i.key === item.parentKey)?.parentKey;
    if (!child || !parent || nested || parentKeys.has(item.key)) {
      if (child)
        warnings.push(
          `'${list.name}': '${item.title ?? item.key}' was a subtask of an item that is not a top-level item of this list; it is an item of its own.`,
        );
      continue;
    }
    await trx('items').where({ id: child }).update({ parent_id: parent });
  }
}
