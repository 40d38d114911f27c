/**
 * What the CalDAV suites share: the tasks a phone sends (every field listkeeper maps, and
 * properties it does not), and reading a VTODO with ical.js (Mozilla's parser) to check what
 * a client receives. The clients themselves are libraries no one here wrote: tsdav from npm
 * (test/http/caldav-tsdav.test.ts) and Python's caldav from PyPI (test/http/caldav-python.test.ts).
 */
import ICAL from 'ical.js';

/** A repeating timed task from a phone, in its own zone, with a reminder, labels, and what listkeeper has no field for. */
export function phoneTask(uid: string, summary = 'Water the plants'): string {
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Test Phone//Tasks 1.0//EN',
    'BEGIN:VTODO',
    `UID:${uid}`,
    'DTSTAMP:20261127T100000Z',
    `SUMMARY:${summary}`,
    'DESCRIPTION:Both balconies\\nand the hall',
    'DUE;TZID=Europe/Berlin:20261210T180000',
    'STATUS:IN-PROCESS',
    'RRULE:FREQ=WEEKLY;BYDAY=TH',
    'CATEGORIES:home,garden',
    'PRIORITY:1',
    'X-APPLE-SORT-ORDER:42',
    'BEGIN:VALARM',
    'ACTION:DISPLAY',
    'DESCRIPTION:Plants',
    'TRIGGER;RELATED=END:-PT1H',
    'X-WR-ALARMUID:alarm-1',
    'END:VALARM',
    'BEGIN:VALARM',
    'ACTION:AUDIO',
    'TRIGGER;VALUE=DATE-TIME:20261210T120000Z',
    'END:VALARM',
    'END:VTODO',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

/** A subtask of `parentUid`, due on a date without a time. */
export function phoneSubtask(uid: string, parentUid: string): string {
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Test Phone//Tasks 1.0//EN',
    'BEGIN:VTODO',
    `UID:${uid}`,
    'DTSTAMP:20261127T100000Z',
    'SUMMARY:Buy plant food',
    'DUE;VALUE=DATE:20261208',
    `RELATED-TO;RELTYPE=PARENT:${parentUid}`,
    'END:VTODO',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

/** What a client reads of a task: its mapped fields and the properties listkeeper only keeps. */
export interface ReadTask {
  uid: string;
  summary: string | null;
  description: string | null;
  status: string | null;
  /** The due date as an instant, or YYYY-MM-DD for a date. */
  due: string | null;
  dueTzid: string | null;
  rrule: string | null;
  categories: string[];
  relatedTo: string | null;
  /** Each alarm's trigger as written (`-PT1H` with RELATED, or an instant). */
  alarms: { trigger: string; related: string | null; uid: string | null; action: string | null }[];
  priority: number | null;
  sortOrder: string | null;
  completed: string | null;
}

/** Reads the VTODO of calendar text as a client would. */
export function readTask(text: string): ReadTask {
  const calendar = new ICAL.Component(ICAL.parse(text));
  const todo = calendar.getFirstSubcomponent('vtodo');
  if (!todo) throw new Error(`no VTODO in ${text}`);
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  const due = todo.getFirstProperty('due');
  const dueTime = due?.getFirstValue() as ICAL.Time | undefined;
  const text_ = (name: string) => (todo.getFirstPropertyValue(name) as string | null) ?? null;
  return {
    uid: String(todo.getFirstPropertyValue('uid')),
    summary: text_('summary'),
    description: text_('description'),
    status: text_('status'),
    due: dueTime ? (dueTime.isDate ? dueTime.toString() : dueTime.toJSDate().toISOString()) : null,
    dueTzid: (due?.getParameter('tzid') as string | undefined) ?? null,
    rrule: todo.hasProperty('rrule') ? String(todo.getFirstPropertyValue('rrule')) : null,
    categories: todo.getAllProperties('categories').flatMap((p) => p.getValues() as string[]),
    relatedTo: text_('related-to'),
    alarms: todo.getAllSubcomponents('valarm').map((alarm) => {
      const trigger = alarm.getFirstProperty('trigger')!;
      const value = trigger.getFirstValue() as ICAL.Time | ICAL.Duration;
      return {
        trigger: value instanceof ICAL.Time ? value.toJSDate().toISOString() : value.toString(),
        related: (trigger.getParameter('related') as string | undefined) ?? null,
        uid: (alarm.getFirstPropertyValue('x-wr-alarmuid') as string | null) ?? null,
        action: (alarm.getFirstPropertyValue('action') as string | null) ?? null,
      };
    }),
    priority: todo.hasProperty('priority') ? Number(todo.getFirstPropertyValue('priority')) : null,
    sortOrder: text_('x-apple-sort-order') === null ? null : String(todo.getFirstPropertyValue('x-apple-sort-order')),
    completed: todo.hasProperty('completed') ? (todo.getFirstPropertyValue('completed') as ICAL.Time).toJSDate().toISOString() : null,
  };
}

/** Replaces one property line of calendar text (the first whose name matches), or adds it before END:VTODO. */
export function withLine(text: string, name: string, line: string): string {
  const lines = text.split(/\r?\n/);
  const at = lines.findIndex((l) => l.toUpperCase().startsWith(`${name.toUpperCase()}:`) || l.toUpperCase().startsWith(`${name.toUpperCase()};`));
  if (at >= 0) lines[at] = line;
  else lines.splice(lines.indexOf('END:VTODO'), 0, line);
  return lines.join('\r\n');
}
