/**
 * Reading a Todoist project CSV (the format of Todoist's CSV export and import template) into
 * an import plan.
 */
import { dueFromText, quoteCell, readCsv, refuse, Warnings, type ImportPlan, type PlanItem, type PlanList, type PlanProperty } from './import-plan.js';
import { firstDue, parseRecurrence } from '../items/recurrence.js';
import { localNow } from '../time.js';
import { ValueError } from '../lists/values.js';

/** The first occurrence of a rule from now, as a plan's due date. */
function nextOccurrenceDue(rule: string, timeZone: string, now: Date): PlanItem['due'] {
  const first = firstDue(rule, null, now, timeZone);
  if (!first) return null;
  return first.hasTime ? { at: first.at.toISOString() } : { date: localNow(first.at, timeZone).today };
}

/** The columns a Todoist CSV must have. */
const REQUIRED_COLUMNS = ['TYPE', 'CONTENT'];
/** Todoist's p1 (highest) to p4, as the options of Priority. */
const PRIORITY_LABELS = ['P1', 'P2', 'P3', 'P4'];

/**
 * A Todoist project's CSV (its documented template format): `section` rows name the Section
 * of the tasks after them, `note` rows are comments on the task above, PRIORITY 1–4 is p1
 * (highest) to p4, INDENT 2 and more is a subtask of the task above (one level deep), `@label`s in CONTENT become the task's labels, DATE is
 * read in words in TIMEZONE (a repeating one, "every monday", becomes the task's recurrence).
 */
export function planTodoist(text: string, listName: string, context: { timeZone: string; now: Date }): ImportPlan {
  const { header, rows } = readCsv(text);
  const col = (name: string) => header.findIndex((h) => h.toUpperCase() === name);
  for (const name of REQUIRED_COLUMNS)
    if (col(name) < 0)
      throw refuse(`This is not a Todoist CSV: it has no ${name} column (its columns: ${header.join(', ')}). Import it with format csv instead.`, 'csv');
  const at = (row: string[], name: string) => (col(name) >= 0 ? (row[col(name)] ?? '').trim() : '');
  const warnings = new Warnings();
  const items: PlanItem[] = [];
  const sections: string[] = [];
  const walk: Walk = { topLevel: null, flattened: 0, section: null, hasResponsible: false, hasDuration: false };
  let layout: PlanList['layout'] = null;
  rows.forEach((row, r) => {
    const type = at(row, 'TYPE').toLowerCase();
    const content = at(row, 'CONTENT');
    if (type === '' && content === '') return;
    if (type === 'meta') {
      if (content === 'view_style' && at(row, 'DESCRIPTION') === 'board') layout = 'kanban';
      return;
    }
    if (type === 'section') {
      walk.section = content;
      if (content && !sections.includes(content)) sections.push(content);
      return;
    }
    if (type === 'note') {
      const task = items.at(-1);
      if (!task) {
        warnings.add(`Row ${r + 2}: a note before any task; it was left out.`);
        return;
      }
      task.chat.push({ authorKind: 'person', authorName: personName(at(row, 'AUTHOR')) ?? 'Todoist', text: content, needsInput: false, createdAt: null });
      return;
    }
    if (type !== 'task') {
      warnings.add(`Row ${r + 2}: TYPE '${quoteCell(type)}' is not task, section, note or meta; the row was left out.`);
      return;
    }
    items.push(taskItem((name) => at(row, name), r, content, walk, context, warnings));
  });
  const properties: PlanProperty[] = [{ key: 'priority', name: 'Priority', type: 'select', options: PRIORITY_LABELS.map((label) => ({ label })) }];
  if (sections.length) properties.push({ key: 'section', name: 'Section', type: 'select', options: sections.map((label) => ({ label })) });
  const { flattened } = walk;
  if (flattened)
    warnings.add(
      `${flattened} sub-subtask${flattened > 1 ? 's' : ''} (INDENT 3 and more) became subtasks of their top-level task: listkeeper's subtasks go one level deep.`,
    );
  if (walk.hasResponsible) properties.push({ key: 'responsible', name: 'Responsible', type: 'text' });
  if (walk.hasDuration) properties.push({ key: 'duration', name: 'Duration (minutes)', type: 'number' });
  return {
    format: 'todoist',
    lists: [
      {
        name: listName,
        target: { kind: 'new' },
        icon: null,
        instructions: null,
        titleLabel: null,
        layout,
        taskColumns: { status: 'Status', dueDate: 'Due date' },
        properties,
        items,
      },
    ],
    warnings: warnings.done(),
    columns: [],
  };
}

/** What the walk over the rows carries from one row to the next. */
type Walk = { topLevel: string | null; flattened: number; section: string | null; hasResponsible: boolean; hasDuration: boolean };
type Cell = (name: string) => string;

/** A TYPE task row as an item: its @labels, priority, section, nesting, responsible, duration and dates. */
function taskItem(at: Cell, r: number, content: string, walk: Walk, context: { timeZone: string; now: Date }, warnings: Warnings): PlanItem {
  const values: Record<string, unknown> = {};
  const taskLabels = [...content.matchAll(/(?:^|\s)@([\p{L}\p{N}_-]+)/gu)].map((m) => m[1]!);
  const title = taskLabels.length ? content.replace(/(?:^|\s)@[\p{L}\p{N}_-]+/gu, '').trim() : content;

  if (walk.section) values.section = walk.section;
  const priority = at('PRIORITY');
  if (/^[1-4]$/.test(priority)) values.priority = `P${priority}`;
  else if (priority) warnings.add(`Row ${r + 2}: PRIORITY '${quoteCell(priority)}' is not 1 to 4; the task has none.`);
  const indent = Number(at('INDENT') || '1');
  const depth = Number.isInteger(indent) && indent >= 1 ? indent : 1;
  // INDENT 2 is a subtask of the INDENT 1 task above; deeper ones nest under that same task (one level).
  const key = `row-${r + 2}`;
  let parentKey: string | null = null;
  if (depth === 1) walk.topLevel = key;
  else if (walk.topLevel) {
    parentKey = walk.topLevel;
    if (depth > 2) walk.flattened++;
  }
  const responsible = personName(at('RESPONSIBLE'));
  if (responsible) {
    values.responsible = responsible;
    walk.hasResponsible = true;
  }
  const duration = Number(at('DURATION'));
  if (at('DURATION') && Number.isFinite(duration)) {
    values.duration = at('DURATION_UNIT').toLowerCase() === 'day' ? duration * 1440 : duration;
    walk.hasDuration = true;
  }
  const { body, due, recurrence } = taskDates(at, r, title, context, warnings);
  return {
    externalId: null,
    title,
    body,
    taskStatus: 'todo',
    due,
    completedAt: null,
    archivedAt: null,
    favorited: false,
    assignedAgent: null,
    recurrence,
    labels: taskLabels,
    reminderAt: null,
    key,
    parentKey,
    values,
    createdAt: null,
    chat: [],
    attachments: [],
  };
}

/** A task's body, due date and repetition, from DESCRIPTION, DATE and TIMEZONE; a repeating date listkeeper cannot read keeps its next date and goes in the body. */
function taskDates(
  at: Cell,
  r: number,
  title: string,
  context: { timeZone: string; now: Date },
  warnings: Warnings,
): { body: string | null; due: PlanItem['due']; recurrence: string | null } {
  let body = at('DESCRIPTION') || null;
  let due: PlanItem['due'] = null;
  let recurrence: string | null = null;
  const dateText = at('DATE');
  if (dateText) {
    const zone = validZone(at('TIMEZONE')) ?? context.timeZone;
    const recurring = /^(every!?|ev!?|each)\s+/i.exec(dateText);
    if (recurring) {
      // A repeating date: its rule (from the words) and its next occurrence as the due date.
      try {
        recurrence = parseRecurrence(dateText.replace(/^(every!|ev!?)\s+/i, 'every ')).rule;
        due = nextOccurrenceDue(recurrence, zone, context.now);
      } catch (err) {
        if (!(err instanceof ValueError)) throw err;
        due = dueFromText(dateText.slice(recurring[0].length), zone, context.now);
        body = `${body ? `${body}\n\n` : ''}Repeats in Todoist: ${dateText}`;
        warnings.add(
          `Row ${r + 2}: '${quoteCell(title)}' repeats (${quoteCell(dateText)}), a rule listkeeper does not read; it keeps its next due date, and the rule is in its body.`,
        );
      }
    } else {
      due = dueFromText(dateText, zone, context.now);
      if (!due) warnings.add(`Row ${r + 2}: DATE '${quoteCell(dateText)}' is not a date listkeeper reads; '${quoteCell(title)}' has no due date.`);
    }
  }
  return { body, due, recurrence };
}

/** "Evan (14781400)" → "Evan". */
function personName(text: string): string | null {
  const name = text.replace(/\s*\(\d+\)\s*$/, '').trim();
  return name || null;
}

function validZone(zone: string): string | null {
  if (!zone) return null;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone;
  } catch {
    return null;
  }
}
