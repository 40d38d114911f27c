/**
 * Settings → Automations and Settings → Memory: the person's own pages for what the CLI's
 * `listkeeper automation` and `listkeeper memory` do. Server-rendered forms, CSRF-checked, on
 * the web sessions of src/web/sessions.ts.
 * @see openapi/openapi.yaml components/schemas/Automation, AutomationRun
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import { parse as parseYaml } from 'yaml';
import { ApiError } from '../core/errors.js';
import { automationDto, getAutomation, lastRuns, latestRuns, listAutomations, timeZoneOf, type AutomationDto } from '../domain/automations/automations.js';
import { listMemory, MEMORY_MAX_CHARS } from '../domain/accounts/memory.js';
import { localNow } from '../domain/time.js';
import { html, type Html } from './html.js';
import type { PageKit } from './page-kit.js';
import type { WebUser } from './sessions.js';

export const AUTOMATIONS_PATH = '/settings/automations';
export const MEMORY_PATH = '/settings/memory';

const EXAMPLE = `name: Weekly review
schedule: "0 9 * * 1"
actions:
  - type: createItems
    items: [{ title: "Weekly review {date}", dueInDays: 0 }]
  - type: postDigest
    daysAhead: 7`;

/** The notices the automations page shows after an action, by code. */
const NOTICES: Record<string, (a: { name: string; status: string }) => string> = {
  created: (a) => `Created '${a.name}' (${a.status}).`,
  running: (a) => `'${a.name}' is running; its result lands in its chat.`,
  paused: (a) => `'${a.name}' is paused.`,
  active: (a) => `'${a.name}' is active.`,
};

/**
 * The POST actions on one automation (each answers the notice code to show); a refusal shows on
 * the page with its status. Running is the operation REST and MCP call too; pausing, resuming
 * and deleting are the person's own operations.
 */
const ACTIONS: Record<string, (kit: PageKit, user: WebUser, id: string) => Promise<string>> = {
  run: async (kit, user, id) => {
    await kit.call(user, 'run_automation', { id });
    return 'running';
  },
  pause: async (kit, user, id) => {
    await kit.call(user, 'set_automation_status', { id, status: 'paused' });
    return 'paused';
  },
  resume: async (kit, user, id) => {
    await kit.call(user, 'set_automation_status', { id, status: 'active' });
    return 'active';
  },
  delete: async (kit, user, id) => {
    await kit.call(user, 'delete_automation', { id });
    return 'deleted';
  },
};

/** Settings → Automations and Settings → Memory. */
export function registerSettingsPages(router: Router, kit: PageKit): void {
  router.get(AUTOMATIONS_PATH, (ctx) => showAutomations(kit, ctx));
  router.post(AUTOMATIONS_PATH, (ctx) => createAutomation(kit, ctx));
  for (const [name, act] of Object.entries(ACTIONS)) router.post(`${AUTOMATIONS_PATH}/:id/${name}`, (ctx) => automationAction(kit, ctx, act));
  router.get(`${AUTOMATIONS_PATH}/:id`, (ctx) => showAutomation(kit, ctx));
  router.get(MEMORY_PATH, (ctx) => showMemory(kit, ctx));
  router.post(MEMORY_PATH, (ctx) => addMemory(kit, ctx));
  router.post(`${MEMORY_PATH}/:id/remove`, (ctx) => removeMemory(kit, ctx));
}

function button(kit: PageKit, ctx: Context, action: string, label: string, kind = ''): Html {
  return kit.button(ctx, action, label, { kind });
}

function when(iso: string | null, tz: string): string {
  if (!iso) return '—';
  const local = localNow(new Date(iso), tz);
  return `${local.today} ${local.localTime}`;
}

async function automationsPage(
  kit: PageKit,
  ctx: Context,
  user: WebUser,
  opts: { status?: number; notice?: string; error?: string; definition?: string } = {},
): Promise<void> {
  const rows = await listAutomations(kit.deps.db, user.id);
  const [tz, last] = [
    await timeZoneOf(kit.deps.db, user.id),
    await lastRuns(
      kit.deps.db,
      rows.map((r) => r.id),
    ),
  ];
  const items = rows.map((row) => {
    const a: AutomationDto = automationDto(row, tz, last.get(row.id));
    const base = `${AUTOMATIONS_PATH}/${a.id}`;
    const toggle =
      a.status === 'active'
        ? button(kit, ctx, `${base}/pause`, 'Pause', 'secondary')
        : button(kit, ctx, `${base}/resume`, a.status === 'draft' ? 'Activate' : 'Resume', 'secondary');
    return html`<li><strong><a href="${base}">${a.name}</a></strong> <span class="muted">${a.status}</span><br>
<span>${a.description}</span><br>
<span class="muted">${a.schedule ? `Runs at "${a.schedule}" (${tz}); next ${when(a.nextRunAt, tz)}` : 'On demand only'} · last run: ${a.lastRun ? `${a.lastRun.outcome} ${when(a.lastRun.startedAt, tz)}` : 'never'}</span><br>
${a.status === 'draft' ? '' : button(kit, ctx, `${base}/run`, 'Run now')}${toggle}${button(kit, ctx, `${base}/delete`, 'Delete', 'danger')}</li>`;
  });
  kit.show(
    ctx,
    user,
    'Automations',
    html`${opts.notice ? html`<p class="notice">${opts.notice}</p>` : ''}${opts.error ? html`<p class="error">${opts.error}</p>` : ''}
<section class="card"><h2>Your automations</h2>
${rows.length ? html`<ul class="apps">${items}</ul>` : html`<p>No automations yet. An automation is a standing order the service runs on a schedule or when you ask; each run leaves a message in its chat.</p>`}
</section>
<section class="card"><h2>New automation</h2>
<p class="muted">Write it in YAML or JSON: a name, a status (active, paused or draft), a schedule (cron, in your time zone ${tz}; leave it out to run on demand only) and actions: createItems, archiveCompleted, rescheduleOverdue, moveOverdue, postDigest, webhook.</p>
<form method="post" action="${AUTOMATIONS_PATH}"><input type="hidden" name="csrf" value="${kit.csrf(ctx)}">
<label for="definition">Definition</label>
<textarea id="definition" name="definition" rows="10" style="width:100%;font-family:ui-monospace,Menlo,Consolas,monospace" required>${opts.definition ?? EXAMPLE}</textarea>
<button type="submit">Create</button></form>
</section>`,
    { status: opts.status ?? 200, settings: 'automations' },
  );
}

async function showAutomations(kit: PageKit, ctx: Context): Promise<void> {
  const user = await kit.signedIn(ctx);
  if (user) {
    const notice = await noticeFor(kit, user, ctx.query.notice, ctx.query.id);
    await automationsPage(kit, ctx, user, notice ? { notice } : {});
  }
}

async function createAutomation(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  const text = got.form.definition ?? '';
  let definition: unknown;
  try {
    definition = parseYaml(text);
  } catch (err) {
    return automationsPage(kit, ctx, got.user, {
      status: 400,
      error: `The definition is not YAML or JSON: ${(err as Error).message.split('\n')[0]}`,
      definition: text,
    });
  }
  try {
    const made = await kit.call(got.user, 'create_automation', { definition: definition as Record<string, unknown> });
    ctx.status = 303;
    ctx.redirect(`${AUTOMATIONS_PATH}?notice=created&id=${encodeURIComponent(made.id)}`);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    await automationsPage(kit, ctx, got.user, { status: err.status, error: err.message, definition: text });
  }
}

/**
 * A notice after a redirect is passed by code and automation id, never as text: a link cannot
 * make the page show words of its own. Unknown codes, and ids that are not the person's, show nothing.
 */
async function noticeFor(kit: PageKit, user: WebUser, code: unknown, id: unknown): Promise<string | null> {
  if (code === 'deleted') return 'The automation is deleted.';
  if (typeof code !== 'string' || typeof id !== 'string' || !Object.hasOwn(NOTICES, code)) return null;
  const automation = await getAutomation(kit.deps.db, user.id, id).catch(() => null);
  return automation ? NOTICES[code]!(automation) : null;
}

/** One of ACTIONS on the automation in the address, then back to the list with its notice. */
async function automationAction(kit: PageKit, ctx: Context, act: (kit: PageKit, user: WebUser, id: string) => Promise<string>): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  try {
    const notice = await act(kit, got.user, ctx.params.id!);
    ctx.status = 303;
    ctx.redirect(`${AUTOMATIONS_PATH}?notice=${notice}&id=${encodeURIComponent(ctx.params.id!)}`);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    await automationsPage(kit, ctx, got.user, { status: err.status, error: err.message });
  }
}

async function showAutomation(kit: PageKit, ctx: Context): Promise<void> {
  const user = await kit.signedIn(ctx);
  if (!user) return;
  let row: Awaited<ReturnType<typeof getAutomation>>;
  try {
    row = await getAutomation(kit.deps.db, user.id, ctx.params.id!);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return kit.show(
      ctx,
      user,
      'No such automation',
      html`<div class="card"><p>${err.message}</p><p><a href="${AUTOMATIONS_PATH}">Back to your automations</a></p></div>`,
      { status: 404, settings: 'automations' },
    );
  }
  const tz = await timeZoneOf(kit.deps.db, user.id);
  const runs = await latestRuns(kit.deps.db, row.id, 20);
  const list = runs.map(
    (
      r,
    ) => html`<li><strong>${r.outcome}</strong> <span class="muted">${r.trigger === 'schedule' ? 'on schedule' : 'on request'} · ${when((r.started_at ?? r.created_at).toISOString(), tz)}</span>
${r.wrote.length ? html`<ul>${r.wrote.map((w) => html`<li>${w}</li>`)}</ul>` : ''}
${r.error ? html`<p class="error">${r.error}</p>` : ''}</li>`,
  );
  kit.show(
    ctx,
    user,
    row.name,
    html`<section class="card"><p>${row.description}</p>
<p class="muted">${row.status} · ${row.schedule ? `"${row.schedule}" in ${tz}` : 'on demand only'}${row.chat_item_id ? html` · <a href="${kit.deps.config.webOrigin}/artifacts/${row.chat_item_id}">its chat</a>` : ''}</p></section>
<section class="card"><h2>Latest runs</h2>${runs.length ? html`<ul class="apps">${list}</ul>` : html`<p>It has not run yet.</p>`}</section>
<p><a href="${AUTOMATIONS_PATH}">Back to your automations</a></p>`,
    { status: 200, settings: 'automations' },
  );
}

async function memoryPage(kit: PageKit, ctx: Context, user: WebUser, opts: { status?: number; error?: string } = {}): Promise<void> {
  const rows = await listMemory(kit.deps.db, user.id);
  kit.show(
    ctx,
    user,
    'Memory',
    html`${opts.error ? html`<p class="error">${opts.error}</p>` : ''}
<section class="card"><h2>What the AI remembers</h2>
<p class="muted">Agents read these lines at the start of their work (get_context); they cannot change them.</p>
${rows.length ? html`<ul class="apps">${rows.map((r) => html`<li>${r.text} ${button(kit, ctx, `${MEMORY_PATH}/${r.id}/remove`, 'Forget', 'danger')}</li>`)}</ul>` : html`<p>Nothing yet.</p>`}
<form method="post" action="${MEMORY_PATH}"><input type="hidden" name="csrf" value="${kit.csrf(ctx)}">
<label for="text">Remember</label><input id="text" name="text" type="text" maxlength="${MEMORY_MAX_CHARS}" required>
<button type="submit">Add</button></form></section>`,
    { status: opts.status ?? 200, settings: 'memory' },
  );
}

async function showMemory(kit: PageKit, ctx: Context): Promise<void> {
  const user = await kit.signedIn(ctx);
  if (user) await memoryPage(kit, ctx, user);
}

async function addMemory(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  try {
    await kit.call(got.user, 'add_memory', { text: got.form.text ?? '' });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return memoryPage(kit, ctx, got.user, { status: err.status, error: err.message });
  }
  ctx.status = 303;
  ctx.redirect(MEMORY_PATH);
}

async function removeMemory(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  try {
    await kit.call(got.user, 'remove_memory', { id: ctx.params.id! });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return memoryPage(kit, ctx, got.user, { status: err.status, error: err.message });
  }
  ctx.status = 303;
  ctx.redirect(MEMORY_PATH);
}
