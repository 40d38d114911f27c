/**
 * Reading a listkeeper export document into an import plan: each list goes to the hub list it
 * stands for or to the person's list of the same name; values are carried by property id,
 * select options by label (so they land on the matching option, or a new one); an item with
 * no externalId takes its exported id as one, so a second import merges.
 * @see docs/export.md
 */
import { systemRoleOf, type WorkspaceExport } from './export.js';
import { DUE_DATE_ID, isReserved, STATUS_ID } from '../lists/properties.js';
import { localNow } from '../time.js';
import type { TaskStatus } from '../items/row-types.js';
import { Warnings, type ImportPlan, type PlanItem, type PlanList } from './import-plan.js';

export function planDocument(doc: WorkspaceExport): ImportPlan {
  const warnings = new Warnings();
  const lists = doc.lists.map((list): PlanList => {
    const own = list.properties.filter((p) => !isReserved(p.id));
    const status = list.properties.find((p) => p.id === STATUS_ID);
    const due = list.properties.find((p) => p.id === DUE_DATE_ID);
    if (Boolean(status) !== Boolean(due))
      warnings.add(`List '${list.name}' has ${status ? 'a status but no due date' : 'a due date but no status'}; it is imported with both task columns.`);
    const labels = new Map(own.map((p) => [p.id, new Map((p.options ?? []).map((o) => [o.id, o.label]))]));
    const byId = new Map(own.map((p) => [p.id, p]));
    const hub = systemRoleOf(list.hubList);
    return {
      name: list.name,
      target: hub ? { kind: 'hub', role: hub } : { kind: 'sameName' },
      icon: list.icon ?? null,
      instructions: list.instructions ?? null,
      titleLabel: list.titleLabel ?? null,
      layout: list.layout,
      taskColumns:
        status || due
          ? {
              status: status?.name ?? 'Status',
              dueDate: due?.name ?? 'Due date',
              statusLabels: Object.fromEntries((status?.options ?? []).map((o) => [o.id, o.label])) as Partial<Record<TaskStatus, string>>,
            }
          : null,
      properties: own.map((p) => ({ key: p.id, id: p.id, name: p.name, type: p.type, ...(p.options ? { options: p.options } : {}) })),
      items: list.items.map((item): PlanItem => {
        const values: Record<string, unknown> = {};
        for (const [key, value] of Object.entries(item.values ?? {})) {
          const property = byId.get(key);
          if (!property) {
            warnings.add(`An item of '${list.name}' has a value for '${key}', which the list has no property for; it was left out.`);
            continue;
          }
          const options = labels.get(key)!;
          values[key] = Array.isArray(value) ? value.map((v) => options.get(String(v)) ?? v) : options.size ? (options.get(String(value)) ?? value) : value;
        }
        const dueDateOnly = item.dueAt && item.hasDueTime === false;
        return {
          externalId: item.externalId ?? item.id,
          title: item.title,
          body: item.body,
          taskStatus: item.taskStatus ?? null,
          due: item.dueAt ? (dueDateOnly ? { date: localNow(new Date(item.dueAt), doc.timeZone).today } : { at: item.dueAt }) : null,
          completedAt: item.completedAt ?? null,
          archivedAt: item.archivedAt ?? null,
          favorited: item.favorited ?? false,
          assignedAgent: item.assignedAgent ?? null,
          recurrence: item.recurrence ?? null,
          reminderAt: item.reminderAt ?? null,
          key: item.id,
          parentKey: item.parentId ?? null,
          labels: item.labels ?? [],
          values,
          createdAt: item.createdAt ?? null,
          chat: (item.chat ?? []).map((m) => ({
            authorKind: m.authorKind,
            authorName: m.authorName,
            text: m.text,
            needsInput: m.needsInput ?? false,
            createdAt: m.createdAt,
          })),
          attachments: (item.attachments ?? []).map((a) => ({ bucketPath: a.bucketPath, mimeType: a.mimeType, url: a.url })),
        };
      }),
    };
  });
  return { format: 'listkeeper', lists, warnings: warnings.done(), columns: [] };
}
