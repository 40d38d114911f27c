/**
 * Reading a task from the VTODO (RFC 5545) a CalDAV client sent: the fields listkeeper keeps
 * (title, notes, status, due date, repeat rule, one reminder, labels, parent). Everything else
 * in the calendar object stays in the text the client sent, which is kept whole (vtodo-write.ts
 * writes the task back over it), so a round trip loses nothing.
 * @see docs/caldav.md
 */
import ICAL from 'ical.js';
import { localToUtc, startOfLocalDay } from '../time.js';

export type TodoStatus = 'todo' | 'inProgress' | 'completed';
/** A due date: an instant, or (a date without a time) a date, YYYY-MM-DD. */
export type TodoDue = { at: Date } | { date: string };
/** A reminder: some minutes before the due time, or an instant. */
export type TodoReminder = { beforeDueMinutes: number } | { at: Date };

export interface TodoFields {
  title: string | null;
  body: string | null;
  status: TodoStatus;
  due: TodoDue | null;
  recurrence: string | null;
  reminder: TodoReminder | null;
  labels: string[];
  parentUid: string | null;
}

export interface ReadTodo {
  uid: string;
  fields: TodoFields;
}

/** A calendar object that is not a task listkeeper can keep; the message says why, for the client. */
export class TodoError extends Error {}

/** Parses calendar text; throws TodoError when it is not iCalendar. */
export function parseCalendar(text: string): ICAL.Component {
  try {
    const parsed = ICAL.parse(text) as unknown[];
    // One component parses to its jCal array; several to an array of them: the first is read.
    const root = new ICAL.Component((Array.isArray(parsed[0]) ? parsed[0] : parsed) as never);
    if (root.name !== 'vcalendar') throw new TodoError('the body is not a VCALENDAR.');
    return root;
  } catch (err) {
    if (err instanceof TodoError) throw err;
    throw new TodoError(`the body is not iCalendar text (${(err as Error).message}).`);
  }
}

/** The task's own VTODO: the one without RECURRENCE-ID. */
export function masterTodo(vcal: ICAL.Component): ICAL.Component | null {
  return vcal.getAllSubcomponents('vtodo').find((c) => !c.hasProperty('recurrence-id')) ?? null;
}

/** The fields of the task in `text`; times without a zone are read in `timeZone`, the person's. */
export function readTodo(text: string, timeZone: string): ReadTodo {
  const vcal = parseCalendar(text);
  const todo = masterTodo(vcal);
  if (!todo) throw new TodoError('it holds no VTODO: these collections keep tasks only.');
  const uid = todo.getFirstPropertyValue('uid');
  if (typeof uid !== 'string' || uid.trim() === '') throw new TodoError('its VTODO has no UID.');
  return { uid, fields: todoFields(vcal, todo, timeZone) };
}

/** The fields one VTODO says. */
export function todoFields(vcal: ICAL.Component, todo: ICAL.Component, timeZone: string): TodoFields {
  const due = readDue(vcal, todo, timeZone);
  return {
    title: textOf(todo, 'summary'),
    body: textOf(todo, 'description'),
    status: readStatus(todo),
    due,
    recurrence: todo.hasProperty('rrule') ? String(todo.getFirstPropertyValue('rrule')) : null,
    reminder: firstAlarm(todo) ? readTrigger(firstAlarm(todo)!, vcal, todo, due, timeZone) : null,
    labels: readLabels(todo),
    parentUid: parentProperty(todo)?.getFirstValue()?.toString() ?? null,
  };
}

function textOf(todo: ICAL.Component, name: string): string | null {
  const value = todo.getFirstPropertyValue(name);
  return typeof value === 'string' && value !== '' ? value : null;
}

function readStatus(todo: ICAL.Component): TodoStatus {
  const status = String(todo.getFirstPropertyValue('status') ?? '').toUpperCase();
  if (status === 'COMPLETED' || status === 'CANCELLED') return 'completed';
  if (status === 'IN-PROCESS') return 'inProgress';
  if (status === 'NEEDS-ACTION') return 'todo';
  return todo.hasProperty('completed') || Number(todo.getFirstPropertyValue('percent-complete')) === 100 ? 'completed' : 'todo';
}

function readDue(vcal: ICAL.Component, todo: ICAL.Component, timeZone: string): TodoDue | null {
  const due = todo.getFirstProperty('due');
  if (!due) return null;
  const time = due.getFirstValue() as ICAL.Time;
  if (time.isDate) return { date: dateText(time) };
  return { at: instantOf(vcal, due, timeZone) };
}

/** YYYY-MM-DD of a DATE value. */
export function dateText(time: ICAL.Time): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${String(time.year).padStart(4, '0')}-${two(time.month)}-${two(time.day)}`;
}

/** The zone named by an IANA id, or null for any other TZID (Outlook's names, custom ones). */
function ianaZone(tzid: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tzid }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/**
 * The instant of a DATE-TIME property: UTC as written; with a TZID, the IANA zone of that
 * name, else the VTIMEZONE of the calendar that defines it; a floating time (no zone), or a
 * zone nobody defined, is read in the person's zone.
 */
export function instantOf(vcal: ICAL.Component, property: ICAL.Property, timeZone: string): Date {
  const time = property.getFirstValue() as ICAL.Time;
  if (time.isDate) return startOfLocalDay(new Date(`${dateText(time)}T12:00:00Z`), timeZone);
  if (time.zone?.tzid === 'UTC' || time.toString().endsWith('Z')) return time.toJSDate();
  const tzid = property.getParameter('tzid') as string | undefined;
  const zone = tzid ? ianaZone(tzid) : null;
  const defined = tzid && !zone ? vcal.getAllSubcomponents('vtimezone').find((c) => c.getFirstPropertyValue('tzid') === tzid) : undefined;
  if (defined) {
    const copy = time.clone();
    copy.zone = new ICAL.Timezone(defined);
    return copy.toJSDate();
  }
  const at = localToUtc(time.year, time.month, time.day, time.hour, time.minute, zone ?? timeZone);
  return new Date(at.getTime() + time.second * 1000);
}

/** The alarm listkeeper reads as the task's reminder: the first with a trigger. */
export function firstAlarm(todo: ICAL.Component): ICAL.Component | null {
  return todo.getAllSubcomponents('valarm').find((a) => a.hasProperty('trigger')) ?? null;
}

/**
 * A reminder from an alarm's TRIGGER: a time before the due date when it is relative to it
 * (RELATED=END, or relative to a task without DTSTART), an instant otherwise.
 */
export function readTrigger(alarm: ICAL.Component, vcal: ICAL.Component, todo: ICAL.Component, due: TodoDue | null, timeZone: string): TodoReminder | null {
  const trigger = alarm.getFirstProperty('trigger');
  if (!trigger) return null;
  const value = trigger.getFirstValue() as ICAL.Duration | ICAL.Time;
  if (!(value instanceof ICAL.Duration)) return { at: instantOf(vcal, trigger, timeZone) };
  const seconds = value.toSeconds();
  const related = String(trigger.getParameter('related') ?? 'START').toUpperCase();
  const start = todo.getFirstProperty('dtstart');
  if (related === 'START' && start) return { at: new Date(instantOf(vcal, start, timeZone).getTime() + seconds * 1000) };
  if (!due) return null;
  if (seconds <= 0) return { beforeDueMinutes: Math.round(-seconds / 60) };
  return { at: new Date(dueInstant(due, timeZone).getTime() + seconds * 1000) };
}

/** The instant a due date stands for: its time, or the start of its day in the person's zone. */
export function dueInstant(due: TodoDue, timeZone: string): Date {
  return 'at' in due ? due.at : startOfLocalDay(new Date(`${due.date}T12:00:00Z`), timeZone);
}

function readLabels(todo: ICAL.Component): string[] {
  const seen = new Set<string>();
  const labels: string[] = [];
  for (const property of todo.getAllProperties('categories'))
    for (const value of property.getValues() as unknown[]) {
      const label = String(value).trim();
      if (label && !seen.has(label.toLowerCase())) {
        seen.add(label.toLowerCase());
        labels.push(label);
      }
    }
  return labels;
}

/** The RELATED-TO that names the task's parent (no RELTYPE, or PARENT). */
export function parentProperty(todo: ICAL.Component): ICAL.Property | null {
  return todo.getAllProperties('related-to').find((p) => String(p.getParameter('reltype') ?? 'PARENT').toUpperCase() === 'PARENT') ?? null;
}
