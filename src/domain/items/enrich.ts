/**
 * The enrich pass (`enrich: true` on a tasks list), run in the background after the write
 * commits: a due date read from natural language in the title with chrono-node, in the
 * person's time zone ("call mom tomorrow at 5pm"), the title cleaned of that phrase, and a
 * list suggestion when another list's name or standing rules share words with the title.
 * What it did is recorded in `items.guidance_note`, which get_item shows in `guidance`.
 * What the caller set itself stays: a due date already on the item is never replaced, the
 * status is never touched, and an item edited in between is left alone.
 * @see openapi/openapi.yaml create_items
 */
import * as chrono from 'chrono-node';
import type { Knex } from 'knex';
import type { OperationContext } from '../../core/context.js';
import { emit } from '../changes/outbox.js';
import { keepsDueDate, liveLists, type ListRow } from '../lists/lists.js';
import type { ItemDbRow } from './items.js';
import { localNow, localToUtc, zoneOffsetMinutes } from '../time.js';

export const ENRICH_TOPIC = 'item.enrich';

/** Queues the pass for each item, in the write's transaction (the outbox delivers it after commit). */
export async function enqueueEnrich(ctx: OperationContext, trx: Knex, itemIds: string[]): Promise<void> {
  // The item's write stamp goes along: a pass that finds the item changed since leaves it alone.
  const rows = (await trx('items').whereIn('id', itemIds).select('id', 'updated_at')) as { id: string; updated_at: Date }[];
  for (const row of rows) await emit(trx, ENRICH_TOPIC, row.id, { ownerId: ctx.principal.userId, writtenAt: row.updated_at.toISOString() });
}

export interface DueInTitle {
  dueAt: Date;
  hasDueTime: boolean;
  phrase: string;
  title: string;
}

const DANGLING = /\s+(?:on|at|by|due|before|until|for)$/i;

/** The first date or time the title names, read in `timeZone` at `now`, and the title without it. */
export function readDueFromTitle(title: string, timeZone: string, now: Date): DueInTitle | null {
  const [found] = chrono.parse(title, { instant: now, timezone: zoneOffsetMinutes(now, timeZone) }, { forwardDate: true });
  if (!found) return null;
  const start = found.start;
  const hasDueTime = start.isCertain('hour');
  const [year, month, day] = [start.get('year')!, start.get('month')!, start.get('day')!];
  const dueAt = hasDueTime
    ? localToUtc(year, month, day, start.get('hour') ?? 0, start.get('minute') ?? 0, timeZone)
    : localToUtc(year, month, day, 0, 0, timeZone);
  let cleaned = `${title.slice(0, found.index)} ${title.slice(found.index + found.text.length)}`.replace(/\s+/g, ' ').trim();
  cleaned = cleaned
    .replace(DANGLING, '')
    .replace(/^[,;:\-–]+\s*|\s*[,;:\-–]+$/g, '')
    .trim();
  if (cleaned && /^[A-Z]/.test(title) && /^[a-z]/.test(cleaned)) cleaned = cleaned[0]!.toUpperCase() + cleaned.slice(1);
  return { dueAt, hasDueTime, phrase: found.text, title: cleaned || title };
}

const STOPWORDS = new Set(
  'the and for with from that this into about your my our their have has get buy call make take list lists item items task tasks note notes one line per every all any some'.split(
    ' ',
  ),
);

function words(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length >= 3 && !STOPWORDS.has(w))
      .map((w) => (w.length > 4 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w)),
  );
}

/**
 * The list that fits the title better than its own, if one clearly does: a word of the title
 * in a list's name counts 2, in its standing rules 1; a list needs 2 points and a clear lead.
 */
export function suggestList(title: string, current: ListRow, lists: ListRow[]): { list: ListRow; matched: string[]; where: string } | null {
  const titleWords = words(title);
  const scored = lists
    .filter((l) => l.id !== current.id)
    .map((list) => {
      const inName = [...words(list.name)].filter((w) => titleWords.has(w));
      const inRules = [...words(list.instructions ?? '')].filter((w) => titleWords.has(w) && !inName.includes(w));
      return { list, inName, inRules, score: 2 * inName.length + inRules.length };
    })
    .sort((a, b) => b.score - a.score);
  const [best, second] = scored;
  if (!best || best.score < 2 || (second && second.score === best.score)) return null;
  const where = best.inName.length ? (best.inRules.length ? 'its name and standing rules' : 'its name') : 'its standing rules';
  return { list: best.list, matched: [...best.inName, ...best.inRules], where };
}

/** Runs the pass on one item; returns the guidance note written, or null when the item is gone or changed. */
export async function enrichItem(db: Knex, itemId: string, writtenAt: Date, now: Date): Promise<string | null> {
  const item = (await db('items').where({ id: itemId }).whereNull('deleted_at').first()) as ItemDbRow | undefined;
  if (!item?.title || item.updated_at.getTime() !== writtenAt.getTime()) return null;
  const user = (await db('users').where({ id: item.owner_id }).first('timezone')) as { timezone: string };
  const lists = await liveLists(db, item.owner_id);
  const list = lists.find((l) => l.id === item.list_id);
  if (!list) return null;
  const notes: string[] = [];
  const patch: Record<string, unknown> = {};
  const due = readDueFromTitle(item.title, user.timezone, now);
  if (due && item.due_at === null && keepsDueDate(list)) {
    patch.due_at = due.dueAt;
    patch.has_due_time = due.hasDueTime;
    patch.title = due.title;
    const local = localNow(due.dueAt, user.timezone);
    notes.push(
      `Enrich read '${due.phrase}' in the title as due ${local.today}${due.hasDueTime ? ` ${local.localTime}` : ''} (${user.timezone}) and took it out of the title.`,
    );
  } else if (due && item.due_at !== null) {
    notes.push(`Enrich saw '${due.phrase}' in the title but kept the due date that was set.`);
  } else {
    notes.push('Enrich found no date in the title.');
  }
  const suggestion = suggestList((patch.title as string | undefined) ?? item.title, list, lists);
  if (suggestion)
    notes.push(
      `It may belong on '${suggestion.list.name}' (${suggestion.list.id}) rather than '${list.name}': ${suggestion.matched.map((w) => `'${w}'`).join(', ')} ${suggestion.matched.length > 1 ? 'match' : 'matches'} ${suggestion.where}. Move it with move_items if so.`,
    );
  const note = notes.join(' ');
  // Only the item as it was written: if the person or an agent changed it meanwhile (even
  // between the read above and this write), their edit wins and the pass leaves it alone.
  const updated = await db('items')
    .where({ id: item.id, updated_at: item.updated_at })
    .whereNull('deleted_at')
    .update({ ...patch, guidance_note: note, updated_at: now });
  return updated ? note : null;
}
