/**
 * The item page's edit form: one input per field, chosen by the property's type, and the
 * update_items input for what the person changed. The form carries the values it showed
 * (`was`), so a save sends only the fields the person touched: a value an agent changed
 * while the page was open is not overwritten with the old one. The body goes as a `rewrite`
 * edit based on the version the page showed, so a body changed meanwhile is refused (409)
 * instead of lost.
 * @see openapi/openapi.yaml components/schemas/UpdateItemEntry, ValuesInput
 */
import type { OpInput, OpOutput } from '../core/context.js';
import { bodyVersion } from '../domain/body/index.js';
import { Html, html } from './html.js';

export type Item = OpOutput<'get_item'>;
type Property = Item['properties'][number];

/** A field's value as the form holds it: text, or the chosen options of a multiSelect. */
export type FieldValue = string | string[];
/** Field name → value: `title`, `taskStatus`, `dueAt`, `reminderAt`, `recurrence`, `labels`, `v:<property id>`. */
export type Fields = Record<string, FieldValue>;

/** What the person typed, shown again after a refusal or a preview. */
export interface Draft {
  fields: Fields;
  /** The values the form first showed (what a save compares against). */
  was: Fields;
  body: string;
  bodyVersion: string;
}

/** The task columns `status` and `dueDate` are edited as status and due date, not as values. */
const TASK_COLUMNS = new Set(['status', 'dueDate']);
export const STATUS_TEXT: Record<string, string> = { todo: 'To do', inProgress: 'In progress', completed: 'Completed' };

export const keepsStatus = (item: Item) => item.properties.some((p) => p.id === 'status');
export const keepsDueDate = (item: Item) => item.properties.some((p) => p.id === 'dueDate');
const ownProperties = (item: Item) => item.properties.filter((p) => !TASK_COLUMNS.has(p.id));
const valueKey = (p: Property) => `v:${p.id}`;

/** How the page writes an instant and a day, in the person's time zone; the API reads both back. */
export interface Clock {
  time(at: Date): string;
  day(at: Date): string;
}

/** The item's current values as the form shows them. */
export function shownFields(item: Item, clock: Clock): Fields {
  const fields: Fields = { title: item.title ?? '', labels: (item.labels ?? []).join(', ') };
  if (keepsStatus(item)) fields.taskStatus = item.taskStatus ?? 'todo';
  if (keepsDueDate(item)) {
    fields.dueAt = item.dueAt ? (item.hasDueTime ? clock.time(new Date(item.dueAt)) : clock.day(new Date(item.dueAt))) : '';
    fields.reminderAt = item.reminderAt ? clock.time(new Date(item.reminderAt)) : '';
    fields.recurrence = item.recurrence?.text ?? '';
  }
  for (const p of ownProperties(item)) fields[valueKey(p)] = shownValue(p, item.values[p.id]);
  return fields;
}

function shownValue(p: Property, value: unknown): FieldValue {
  if (p.type === 'multiSelect') return Array.isArray(value) ? value.map(String) : value == null || value === '' ? [] : [String(value)];
  if (p.type === 'checkbox') return value === true ? 'true' : 'false';
  return value == null ? '' : String(value);
}

/**
 * The fields of a submitted form. A check box sends nothing when unchecked, so each is
 * preceded by a hidden `false` (the last value wins); a multiSelect's boxes by a hidden ""
 * (dropped), so unticking every option clears it.
 */
export function submittedFields(item: Item, all: URLSearchParams, clock: Clock): Fields {
  const fields: Fields = {};
  for (const [key, shown] of Object.entries(shownFields(item, clock))) {
    const values = all.getAll(key);
    if (values.length === 0) continue;
    fields[key] = Array.isArray(shown) ? values.filter((v) => v !== '') : values[values.length - 1]!;
  }
  return fields;
}

/** The form's `was` field read back; the current values when it is missing or unreadable. */
export function wasFields(text: string | undefined, fallback: Fields): Fields {
  try {
    const parsed = JSON.parse(text ?? '') as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Fields;
  } catch {
    // fall through
  }
  return fallback;
}

const same = (a: FieldValue | undefined, b: FieldValue | undefined) =>
  JSON.stringify(Array.isArray(a) ? [...a].sort() : a) === JSON.stringify(Array.isArray(b) ? [...b].sort() : b);

/** The update_items input for the fields that differ from what the form showed, or null when nothing did. */
export function updateInput(item: Item, draft: Draft): OpInput<'update_items'> | null {
  const changed = Object.keys(draft.fields).filter((key) => !same(draft.fields[key], draft.was[key]));
  const entry: OpInput<'update_items'>['items'][number] = { itemId: item.id };
  const input: OpInput<'update_items'> = { items: [entry] };
  const values: Record<string, string | boolean | string[]> = {};
  const byKey = new Map(ownProperties(item).map((p) => [valueKey(p), p]));
  for (const key of changed) {
    const value = draft.fields[key]!;
    const text = Array.isArray(value) ? value.join(', ') : value.trim();
    const property = byKey.get(key);
    if (property) values[property.id] = property.type === 'checkbox' ? value === 'true' : Array.isArray(value) ? value : text;
    else if (key === 'title') entry.title = text;
    else if (key === 'taskStatus') input.taskStatus = text as NonNullable<OpInput<'update_items'>['taskStatus']>;
    else if (key === 'dueAt') input.dueAt = text === '' ? 'none' : text;
    else if (key === 'reminderAt') entry.reminderAt = text;
    else if (key === 'recurrence') entry.recurrence = text;
    else if (key === 'labels') entry.labels = text.split(',').flatMap((l) => (l.trim() ? [l.trim()] : []));
  }
  if (Object.keys(values).length) entry.values = values;
  const body = draft.body.replace(/\r\n?/g, '\n');
  if (body !== (item.body ?? '').replace(/\r\n?/g, '\n') && !bodyUnchanged(draft))
    entry.edits = [{ op: 'rewrite', baseVersion: draft.bodyVersion, markdown: body }];
  const writes = Object.keys(entry).length > 1 || input.taskStatus !== undefined || input.dueAt !== undefined;
  return writes ? input : null;
}

/** True when the submitted body is the one the page showed (by its version), in either line ending. */
function bodyUnchanged(draft: Draft): boolean {
  return [draft.body, draft.body.replace(/\r\n?/g, '\n')].some((b) => bodyVersion(b) === draft.bodyVersion);
}

// ---- Rendering ------------------------------------------------------------------------------

/** The inputs of the form, filled with `fields`. */
export function fieldInputs(item: Item, fields: Fields): Html {
  const text = (key: string) => {
    const v = fields[key];
    return Array.isArray(v) ? v.join(', ') : (v ?? '');
  };
  const task: Html[] = [];
  if (keepsStatus(item))
    task.push(
      html`<label for="f-taskStatus">Status</label><select id="f-taskStatus" name="taskStatus">${Object.entries(STATUS_TEXT).map(
        ([id, label]) => html`<option value="${id}"${text('taskStatus') === id ? new Html(' selected') : ''}>${label}</option>`,
      )}</select>`,
    );
  if (keepsDueDate(item))
    task.push(
      textInput('dueAt', 'Due date', text('dueAt'), 'A date or date and time, in words too: “tomorrow 5pm”, “next Friday”. Empty: no due date.'),
      textInput('reminderAt', 'Reminder', text('reminderAt'), 'A time, “30 minutes before” or “tomorrow 9am”. Empty: no reminder.'),
      textInput('recurrence', 'Repeat', text('recurrence'), 'Words or an RRULE: “every weekday at 9”, “every month”. Empty: does not repeat.'),
    );
  task.push(textInput('labels', 'Labels', text('labels'), 'Separated by commas.'));
  return html`${ownProperties(item).map((p) => propertyInput(p, fields[valueKey(p)]))}${task}`;
}

function textInput(name: string, label: string, value: string, hint: string): Html {
  return html`<label for="f-${name}">${label}</label><input type="text" id="f-${name}" name="${name}" value="${value}" aria-describedby="f-${name}-hint" autocomplete="off"><span class="muted hint" id="f-${name}-hint">${hint}</span>`;
}

const INPUT_TYPES: Record<string, string> = { url: 'url', email: 'email', number: 'number' };

function propertyInput(p: Property, value: FieldValue | undefined): Html {
  const key = valueKey(p);
  const id = `f-${p.id}`;
  const text = Array.isArray(value) ? value.join(', ') : (value ?? '');
  const options = p.options ?? [];
  switch (p.type) {
    case 'checkbox':
      return html`<input type="hidden" name="${key}" value="false"><label class="inline check" for="${id}"><input type="checkbox" id="${id}" name="${key}" value="true"${text === 'true' ? new Html(' checked') : ''}> ${p.name}</label>`;
    case 'select':
      return html`<label for="${id}">${p.name}</label><select id="${id}" name="${key}"><option value="">—</option>${options.map(
        (o) => html`<option value="${o.id}"${o.id === text ? new Html(' selected') : ''}>${o.label}</option>`,
      )}${text && !options.some((o) => o.id === text) ? html`<option value="${text}" selected>${text}</option>` : ''}</select>`;
    case 'multiSelect': {
      const chosen = new Set(Array.isArray(value) ? value : []);
      return html`<fieldset class="choices"><legend>${p.name}</legend><input type="hidden" name="${key}" value="">${options.map(
        (o, i) =>
          html`<label class="inline" for="${id}-${i}"><input type="checkbox" id="${id}-${i}" name="${key}" value="${o.id}"${chosen.has(o.id) ? new Html(' checked') : ''}> ${o.label}</label>`,
      )}</fieldset>`;
    }
    case 'date': {
      // A date-time value stays in a text input: a date input would drop its time.
      const type = text === '' || /^\d{4}-\d{2}-\d{2}$/.test(text) ? 'date' : 'text';
      return html`<label for="${id}">${p.name}</label><input type="${type}" id="${id}" name="${key}" value="${text}">`;
    }
    default: {
      const type = INPUT_TYPES[p.type] ?? 'text';
      return html`<label for="${id}">${p.name}</label><input type="${type}" id="${id}" name="${key}" value="${text}"${type === 'number' ? new Html(' step="any"') : ''}>`;
    }
  }
}
