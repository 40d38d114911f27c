/**
 * Seeds a realistic workspace fast, for benchmarks (`bench/run.ts`): lists of every role (tasks, notes, rows
 * with properties), items with bodies of realistic length, chats and trash, written with
 * multi-row INSERTs in batches and a progress line on stderr. Deterministic for a given seed.
 */
import type { Knex } from 'knex';
import { createUser } from '../src/domain/accounts/accounts.js';
import { createApiKey } from '../src/domain/accounts/api-keys.js';
import { buildOptions, taskColumns, type Property } from '../src/domain/lists/properties.js';
import { sequencePending } from '../src/domain/changes/feed.js';

export interface SeedResult {
  userId: string;
  email: string;
  key: string;
  lists: Record<string, string>;
  items: number;
  bigListId: string;
  ms: number;
}

const WORDS =
  'plan review call email book renew pay order fix clean write read draft send check update prepare buy visit schedule cancel garden kitchen car insurance passport tax doctor dentist school meeting report invoice budget holiday flight hotel train birthday gift recipe dinner groceries laundry bike repair phone bank pension mortgage rent water electricity internet subscription library project client design launch notes ideas summary agenda quarterly roadmap interview hiring onboarding'.split(
    ' ',
  );
const AUTHORS = ['Le Guin', 'Herbert', 'Austen', 'Tolstoy', 'Morrison', 'Calvino', 'Borges', 'Atwood', 'Ishiguro', 'Woolf'];

/** Mulberry32: a small seeded PRNG, so two runs seed the same data. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function progress(label: string, done: number, total: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
  if (done === total) process.stderr.write('\n');
}

const DAY = 86400000;

type TextGenerator = ReturnType<typeof textGenerator>;

/** Seeded text and picks; every draw goes through one `rand`, so the order of calls fixes the data. */
function textGenerator(rand: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const sentence = () => {
    const s = words(6 + Math.floor(rand() * 10));
    return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
  };
  const body = (lines: number) => {
    const out = [`# ${words(3)}`, ''];
    for (let i = 0; i < lines; i++) out.push(rand() < 0.3 ? `- [${rand() < 0.5 ? 'x' : ' '}] ${words(5)}` : sentence());
    return out.join('\n');
  };
  return { rand, pick, words, sentence, body };
}

type SeededList = 'tasks' | 'notes' | 'lifeAdmin' | 'reading' | 'projects';

/** One `items` row of list `name`: tasks get a status and due date, reading rows their properties, 2% are in the trash. */
function itemRow(
  gen: TextGenerator,
  at: { ownerId: string; listId: string; name: SeededList; now: number; statesOf: string[]; tagsOf: string[] },
): Record<string, unknown> {
  const { rand, pick, words, body } = gen;
  const { name, now, statesOf, tagsOf } = at;
  const created = new Date(now - Math.floor(rand() * 365 * DAY));
  const isTask = name === 'tasks' || name === 'projects' || name === 'lifeAdmin';
  const status = isTask ? pick(['todo', 'todo', 'todo', 'inProgress', 'completed'] as const) : null;
  const row: Record<string, unknown> = {
    owner_id: at.ownerId,
    list_id: at.listId,
    title: `${words(2 + Math.floor(rand() * 4))}`,
    body: name === 'notes' ? body(5 + Math.floor(rand() * 30)) : rand() < 0.4 ? body(2 + Math.floor(rand() * 6)) : null,
    task_status: status,
    completed_at: status === 'completed' ? new Date(created.getTime() + DAY) : null,
    due_at: isTask && rand() < 0.7 ? new Date(now + Math.floor((rand() - 0.3) * 60 * DAY)) : null,
    has_due_time: isTask ? rand() < 0.5 : null,
    values: JSON.stringify(
      name === 'reading'
        ? {
            p_author: pick(AUTHORS),
            p_pages: 80 + Math.floor(rand() * 900),
            p_state: pick(statesOf),
            p_tags: [pick(tagsOf)],
            p_rating: 1 + Math.floor(rand() * 5),
          }
        : {},
    ),
    created_at: created,
    updated_at: created,
    edited_at: created,
    deleted_at: null as Date | null,
    purges_at: null as Date | null,
  };
  if (rand() < 0.02) {
    row.deleted_at = new Date(now - Math.floor(rand() * 20 * DAY));
    row.purges_at = new Date((row.deleted_at as Date).getTime() + 30 * DAY);
  }
  return row;
}

/** The three-message chat (person, agent, person) that 5% of items carry. */
function chatRows(gen: TextGenerator, id: string, now: number): Record<string, unknown>[] {
  const { rand, sentence } = gen;
  const session = crypto.randomUUID();
  return [
    { item_id: id, session_id: session, author_kind: 'person', author_name: 'Bench', text: sentence(), created_at: new Date(now - 3 * DAY) },
    {
      item_id: id,
      session_id: session,
      author_kind: 'agent',
      author_name: 'Your agent',
      text: sentence(),
      needs_input: rand() < 0.3,
      created_at: new Date(now - 2 * DAY),
    },
    { item_id: id, session_id: session, author_kind: 'person', author_name: 'Bench', text: sentence(), created_at: new Date(now - DAY) },
  ];
}

/** Builds an account with `items` items spread over five lists, 20% of them on one list of rows. */
export async function seedWorkspace(db: Knex, opts: { items: number; email?: string; seed?: number; quiet?: boolean }): Promise<SeedResult> {
  const started = performance.now();
  const gen = textGenerator(prng(opts.seed ?? 1));
  const { rand } = gen;

  const email = opts.email ?? `bench-${Date.now()}-${Math.floor(rand() * 1e6)}@example.com`;
  const user = await createUser(db, { email, name: 'Bench', timezone: 'Europe/London' });
  const key = await createApiKey(db, user.id);
  const hub = (await db('lists').where({ owner_id: user.id }).select('id', 'system_role')) as { id: string; system_role: string }[];
  const byRole = Object.fromEntries(hub.map((l) => [l.system_role, l.id]));
  const readingProps: Property[] = [
    { id: 'p_author', name: 'Author', type: 'text' },
    { id: 'p_pages', name: 'Pages', type: 'number' },
    { id: 'p_state', name: 'State', type: 'select', options: buildOptions(['To read', 'Reading', 'Read']) },
    { id: 'p_tags', name: 'Tags', type: 'multiSelect', options: buildOptions(['fiction', 'history', 'science', 'travel']) },
    { id: 'p_rating', name: 'Rating', type: 'number' },
  ];
  const [reading] = (await db('lists')
    .insert({ owner_id: user.id, name: 'Reading list', icon: '📚', layout: 'table', properties: JSON.stringify(readingProps) })
    .returning('id')) as { id: string }[];
  const [projects] = (await db('lists')
    .insert({ owner_id: user.id, name: 'Projects', icon: '🗂️', layout: 'kanban', properties: JSON.stringify(taskColumns()) })
    .returning('id')) as { id: string }[];
  const lists = { tasks: byRole.tasks!, notes: byRole.notes!, lifeAdmin: byRole.life_admin!, reading: reading!.id, projects: projects!.id };
  // Shares of the whole: tasks 40%, reading 20% (the big list), notes 20%, projects 15%, life admin 5%.
  const plan: [keyof typeof lists, number][] = [
    ['tasks', 0.4],
    ['reading', 0.2],
    ['notes', 0.2],
    ['projects', 0.15],
    ['lifeAdmin', 0.05],
  ];
  const statesOf = readingProps[2]!.options!.map((o) => o.id);
  const tagsOf = readingProps[3]!.options!.map((o) => o.id);
  const now = Date.now();

  let written = 0;
  const batchSize = 1000;
  await db.transaction(async (trx) => {
    // Seeding writes directly: skip the per-row outbox (run `listkeeper search reindex` after) and let the feed sequence once.
    await trx.raw(`SET LOCAL listkeeper.sequencing = 'on'`);
    for (const [name, share] of plan) {
      const count = name === 'lifeAdmin' ? opts.items - written : Math.round(opts.items * share);
      for (let offset = 0; offset < count; offset += batchSize) {
        const rows = Array.from({ length: Math.min(batchSize, count - offset) }, () =>
          itemRow(gen, { ownerId: user.id, listId: lists[name], name, now, statesOf, tagsOf }),
        );
        const inserted = (await trx('items').insert(rows).returning('id')) as { id: string }[];
        const chats = inserted.filter(() => rand() < 0.05).flatMap(({ id }) => chatRows(gen, id, now));
        if (chats.length) await trx('chat_messages').insert(chats);
        written += rows.length;
        if (!opts.quiet) progress(`seeding ${opts.items} items`, written, opts.items);
      }
    }
  });
  await sequencePending(db);
  await db.raw('ANALYZE items');
  return { userId: user.id, email, key, lists, items: written, bigListId: lists.reading, ms: Math.round(performance.now() - started) };
}
