/**
 * Writing a task as a VTODO (RFC 5545) for CalDAV clients. The calendar object the client last
 * sent is the base: a field listkeeper keeps is written over it only where it now differs from
 * what that text says (so a client's own spelling of an unchanged value, a TZID or a relative
 * alarm, stays as it wrote it), and everything listkeeper does not keep passes through.
 * @see docs/caldav.md
 */
import ICAL from 'ical.js';
import { getVtimezoneComponent } from '@touch4it/ical-timezones';
import { parseRecurrence } from '../items/recurrence.js';
import { localParts } from '../time.js';
import {
  dateText,
  dueInstant,
  firstAlarm,
  instantOf,
  masterTodo,
  parentProperty,
  parseCalendar,
  todoFields,
  type TodoDue,
  type TodoFields,
  type TodoStatus,
} from './vtodo-read.js';

/** A task as listkeeper keeps it, in the terms of a VTODO. */
export interface TaskSnapshot {
  uid: string;
  title: string | null;
  body: string | null;
  status: TodoStatus;
  completedAt: Date | null;
  due: TodoDue | null;
  recurrence: string | null;
  /** The reminder's instant, and its distance before the due time when it keeps one. */
  reminder: { at: Date; beforeDueMinutes: number | null } | null;
  labels: string[];
  parentUid: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** The item's page. */
  url: string;
  /** The person's zone: all-day dates are their dates, and a repeating timed task is written in it. */
  timeZone: string;
}

const STATUS: Record<TodoStatus, string> = { todo: 'NEEDS-ACTION', inProgress: 'IN-PROCESS', completed: 'COMPLETED' };

/** The task as a VCALENDAR, over the one the client last sent (`stored`) when there is one. */
export function writeTodo(task: TaskSnapshot, stored: string | null): string {
  const vcal = stored ? parseCalendar(stored) : newCalendar();
  let todo = masterTodo(vcal);
  if (!todo) {
    todo = new ICAL.Component('vtodo');
    vcal.addSubcomponent(todo);
  }
  const was = todoFields(vcal, todo, task.timeZone);
  if (todo.getFirstPropertyValue('uid') !== task.uid) todo.updatePropertyWithValue('uid', task.uid);
  setText(todo, 'summary', task.title, was.title);
  setText(todo, 'description', task.body, was.body);
  writeStatus(todo, task, was);
  writeDue(vcal, todo, task, was);
  writeRecurrence(todo, task, was);
  writeReminder(todo, task, was);
  if (!sameList(was.labels, task.labels)) {
    todo.removeAllProperties('categories');
    if (task.labels.length) {
      const categories = new ICAL.Property('categories');
      categories.setValues(task.labels);
      todo.addProperty(categories);
    }
  }
  if (was.parentUid !== task.parentUid) {
    const parent = parentProperty(todo);
    if (parent) todo.removeProperty(parent);
    if (task.parentUid) todo.addPropertyWithValue('related-to', task.parentUid);
  }
  todo.updatePropertyWithValue('dtstamp', ICAL.Time.fromJSDate(task.updatedAt, true));
  todo.updatePropertyWithValue('last-modified', ICAL.Time.fromJSDate(task.updatedAt, true));
  if (!todo.hasProperty('created')) todo.addPropertyWithValue('created', ICAL.Time.fromJSDate(task.createdAt, true));
  if (!todo.hasProperty('url')) todo.addPropertyWithValue('url', task.url);
  return vcal.toString().replace(/\r?\n/g, '\r\n');
}

function newCalendar(): ICAL.Component {
  const vcal = new ICAL.Component('vcalendar');
  vcal.addPropertyWithValue('version', '2.0');
  vcal.addPropertyWithValue('prodid', '-//listkeeper//tasks//EN');
  return vcal;
}

function setText(todo: ICAL.Component, name: string, value: string | null, was: string | null): void {
  if (value === was) return;
  todo.removeAllProperties(name);
  if (value) todo.addPropertyWithValue(name, value);
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function writeStatus(todo: ICAL.Component, task: TaskSnapshot, was: TodoFields): void {
  if (was.status === task.status) return;
  todo.updatePropertyWithValue('status', STATUS[task.status]);
  todo.removeAllProperties('completed');
  const percent = todo.hasProperty('percent-complete') ? Number(todo.getFirstPropertyValue('percent-complete')) : null;
  if (task.status === 'completed') {
    todo.addPropertyWithValue('completed', ICAL.Time.fromJSDate(task.completedAt ?? task.updatedAt, true));
    if (percent !== null) todo.updatePropertyWithValue('percent-complete', 100);
  } else if (percent === 100) todo.removeAllProperties('percent-complete');
}

function sameDue(a: TodoDue | null, b: TodoDue | null): boolean {
  if (!a || !b) return a === b;
  if ('date' in a || 'date' in b) return 'date' in a && 'date' in b && a.date === b.date;
  return a.at.getTime() === b.at.getTime();
}

/**
 * DUE, and a DTSTART the client kept equal to it (Apple Reminders writes both), which moves
 * with it; a repeating timed task is written at its local time in the person's zone, so a
 * client that rolls it on keeps that time across daylight-saving changes.
 */
function writeDue(vcal: ICAL.Component, todo: ICAL.Component, task: TaskSnapshot, was: TodoFields): void {
  if (sameDue(was.due, task.due)) return;
  const start = todo.getFirstProperty('dtstart');
  const startFollowsDue = start && was.due && sameDue(was.due, readAt(vcal, start, task.timeZone));
  todo.removeAllProperties('due');
  if (startFollowsDue) todo.removeAllProperties('dtstart');
  if (!task.due) return;
  const due = dueProperty('due', task.due, task.recurrence ? task.timeZone : null);
  todo.addProperty(due);
  if (startFollowsDue) todo.addProperty(dueProperty('dtstart', task.due, task.recurrence ? task.timeZone : null));
  const tzid = due.getParameter('tzid') as string | undefined;
  if (tzid && !vcal.getAllSubcomponents('vtimezone').some((c) => c.getFirstPropertyValue('tzid') === tzid)) {
    const zone = getVtimezoneComponent(tzid);
    if (zone) vcal.addSubcomponent(new ICAL.Component(ICAL.parse(zone) as never));
  }
}

function readAt(vcal: ICAL.Component, property: ICAL.Property, timeZone: string): TodoDue {
  const time = property.getFirstValue() as ICAL.Time;
  return time.isDate ? { date: dateText(time) } : { at: instantOf(vcal, property, timeZone) };
}

function dueProperty(name: string, due: TodoDue, zone: string | null): ICAL.Property {
  const property = new ICAL.Property(name);
  if ('date' in due) {
    property.setValue(ICAL.Time.fromDateString(due.date));
    return property;
  }
  if (!zone) {
    property.setValue(ICAL.Time.fromJSDate(due.at, true));
    return property;
  }
  const p = localParts(due.at, zone);
  property.setValue(
    new ICAL.Time({ year: p.year, month: p.month, day: p.day, hour: p.hour, minute: p.minute, second: p.second, isDate: false }, undefined as never),
  );
  property.setParameter('tzid', zone);
  return property;
}

/** The rule as listkeeper writes it, or null when there is none or listkeeper cannot read it. */
function readableRule(rule: string | null): string | null {
  if (!rule) return null;
  try {
    return parseRecurrence(rule).rule;
  } catch {
    return null;
  }
}

/** RRULE; a rule listkeeper cannot read (it keeps none for the task) stays as the client wrote it. */
function writeRecurrence(todo: ICAL.Component, task: TaskSnapshot, was: TodoFields): void {
  if (readableRule(was.recurrence) === task.recurrence) return;
  todo.removeAllProperties('rrule');
  if (task.recurrence) todo.addPropertyWithValue('rrule', ICAL.Recur.fromString(task.recurrence));
}

/** The first alarm stands for the reminder: its trigger is rewritten, it is added, or removed; other alarms pass through. */
function writeReminder(todo: ICAL.Component, task: TaskSnapshot, was: TodoFields): void {
  const before = was.reminder
    ? 'at' in was.reminder
      ? was.reminder.at
      : was.due
        ? beforeDue(was.due, was.reminder.beforeDueMinutes, task.timeZone)
        : null
    : null;
  if ((before?.getTime() ?? null) === (task.reminder?.at.getTime() ?? null)) return;
  let alarm = firstAlarm(todo);
  if (!task.reminder) {
    if (alarm) todo.removeSubcomponent(alarm);
    return;
  }
  if (!alarm) {
    alarm = new ICAL.Component('valarm');
    alarm.addPropertyWithValue('action', 'DISPLAY');
    alarm.addPropertyWithValue('description', task.title || 'Reminder');
    todo.addSubcomponent(alarm);
  }
  alarm.removeAllProperties('trigger');
  const trigger = new ICAL.Property('trigger');
  if (task.reminder.beforeDueMinutes !== null && task.due) {
    trigger.setValue(ICAL.Duration.fromSeconds(-task.reminder.beforeDueMinutes * 60));
    trigger.setParameter('related', 'END');
  } else {
    trigger.resetType('date-time');
    trigger.setValue(ICAL.Time.fromJSDate(task.reminder.at, true));
  }
  alarm.addProperty(trigger);
}

function beforeDue(due: TodoDue, minutes: number, timeZone: string): Date {
  return new Date(dueInstant(due, timeZone).getTime() - minutes * 60_000);
}
