/**
 * What a notice says to the person, the same on every channel: a title, one or two lines, and
 * the item's page, which the notification opens.
 * @see docs/notifications.md
 */
import type { Notice, NoticeKind } from '../changes/notices.js';

export interface NotificationMessage {
  kind: NoticeKind;
  title: string;
  body: string;
  /** The item's page. */
  url: string;
  /** One notification per item and kind: a newer one replaces an older one not yet seen. */
  tag: string;
}

const QUESTION_CHARS = 300;

/** The message of a notice; `url` is the item's page, times are shown in `timeZone`. */
export function messageOf(notice: Notice, url: string, timeZone: string): NotificationMessage {
  const task = notice.title?.trim() || 'Untitled task';
  const tag = `${notice.kind}:${notice.itemId}`;
  if (notice.kind === 'question') {
    const text = (notice.text ?? '').trim();
    const said = text.length > QUESTION_CHARS ? `${text.slice(0, QUESTION_CHARS - 1)}…` : text;
    return { kind: notice.kind, title: `${notice.agentName ?? 'Your agent'} needs your answer`, body: `${task}: ${said}`, url, tag };
  }
  const due = notice.dueAt ? `Due ${when(new Date(notice.dueAt), timeZone)}.` : 'Its reminder time came.';
  return { kind: notice.kind, title: `Reminder: ${task}`, body: due, url, tag };
}

function when(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' }).format(at);
}
