/**
 * Settings → Your data: download the workspace (JSON) or a list (CSV), and import a file:
 * upload it, see the preview (for a CSV each column's mapping, which the person may change),
 * start it, and watch its progress (the page reloads itself while an import runs; no
 * JavaScript). Reads and writes go through the operations REST and MCP use, so the same
 * schema checks and the same refusals apply.
 * @see openapi/openapi.yaml export_workspace, export_list_csv, preview_import, create_import
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import busboy from 'busboy';
import { ApiError } from '../core/errors.js';
import type { components } from '../generated/api.js';
import { liveLists } from '../domain/lists/lists.js';
import { recentImports, type ImportDto } from '../domain/transfer/imports.js';
import { formatOfFile } from '../domain/transfer/import-plan.js';
import { invoke } from '../operations/dispatch.js';
import { html, page, sendPage, type Html } from './html.js';
import type { PageKit } from './page-kit.js';
import type { WebUser } from './sessions.js';

export const DATA_PATH = '/settings/data';
const FORMATS = ['listkeeper', 'csv', 'todoist'] as const;
const TARGETS = ['title', 'body', 'dueAt', 'taskStatus', 'externalId', 'property', 'skip'] as const;
const TYPES = ['', 'text', 'number', 'select', 'multiSelect', 'date', 'checkbox', 'url', 'email'] as const;
type Preview = components['schemas']['ImportPreview'];

/** A multipart form as read: its fields and its one file. */
interface Upload {
  fields: Record<string, string>;
  file: { name: string; text: string } | null;
}
/** Why a multipart body was not read: over the limit, without this browser's token first, or not a form. */
type Refusal = 'tooLarge' | 'forged' | 'unreadable';

/** True when the body is declared larger than `limit` bytes (its Content-Length): it is refused unread. */
function declaredTooLarge(ctx: Context, limit: number): boolean {
  return (ctx.request.length ?? 0) > limit;
}

/**
 * Reads a multipart form of at most `limit` bytes, its CSRF token first. The page's forms send
 * the token as their first field (a browser sends fields in the form's order), so a body whose
 * first part is not a `csrf` field that `tokenOk` accepts is refused there, before its file
 * is read; the rest of it (within the limit) is discarded as it arrives, never kept. A body
 * sent without a length stops being read as soon as it passes the limit.
 */
function readMultipart(ctx: Context, limit: number, tokenOk: (token: string) => boolean): Promise<Upload | Refusal> {
  if (!ctx.is('multipart/form-data')) {
    ctx.set('Connection', 'close');
    return Promise.resolve('unreadable');
  }
  return new Promise((resolve) => {
    const fields: Record<string, string> = {};
    let file: { name: string; chunks: Buffer[] } | null = null;
    let settled = false;
    let seen = 0;
    const parser = busboy({ headers: ctx.req.headers, limits: { files: 1, fileSize: limit, fieldSize: limit, fields: 400 } });
    const stop = (refusal: Refusal) => {
      if (settled) return;
      settled = true;
      ctx.req.unpipe(parser);
      ctx.req.off('data', count);
      parser.removeAllListeners();
      parser.on('error', () => undefined);
      parser.destroy();
      // Within the limit, the rest is read and dropped, so the answer reaches the browser on a
      // connection still in step; past it, the connection is closed after the answer.
      if (refusal === 'tooLarge') ctx.set('Connection', 'close');
      else ctx.req.resume();
      resolve(refusal);
    };
    function count(chunk: Buffer): void {
      seen += chunk.length;
      if (seen > limit) stop('tooLarge');
    }
    parser.on('field', (name, value, info) => {
      if (Object.keys(fields).length === 0 && !(name === 'csrf' && tokenOk(value))) return stop('forged');
      if (info.valueTruncated) return stop('tooLarge');
      if (!(name in fields)) fields[name] = value;
    });
    parser.on('file', (_name, stream, info) => {
      // Destroying the parser mid-file errors the file's stream: with no listener that would
      // be an uncaught 'error', which ends the process.
      stream.on('error', () => undefined);
      if (Object.keys(fields).length === 0) {
        stream.resume();
        return stop('forged');
      }
      const current = { name: info.filename ?? 'file', chunks: [] as Buffer[] };
      file = current;
      stream.on('data', (chunk: Buffer) => current.chunks.push(chunk));
      stream.on('limit', () => stop('tooLarge'));
    });
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      const got = file as { name: string; chunks: Buffer[] } | null;
      resolve({ fields, file: got?.chunks.length ? { name: got.name, text: Buffer.concat(got.chunks).toString('utf8') } : null });
    });
    parser.on('error', () => stop('unreadable'));
    ctx.req.on('data', count);
    ctx.req.pipe(parser);
  });
}

/** Settings → Your data. */
export function registerDataPages(router: Router, kit: PageKit): void {
  router.get(DATA_PATH, (ctx) => showData(kit, ctx));
  router.get(`${DATA_PATH}/export.json`, (ctx) => exportWorkspace(kit, ctx));
  router.get(`${DATA_PATH}/list.csv`, (ctx) => exportListCsv(kit, ctx));
  router.post(`${DATA_PATH}/preview`, (ctx) => previewImport(kit, ctx));
  router.post(`${DATA_PATH}/import`, (ctx) => startImport(kit, ctx));
}

async function overview(kit: PageKit, ctx: Context, user: WebUser, problem?: string, status = 400): Promise<void> {
  const lists = await liveLists(kit.deps.db, user.id);
  const imports = await recentImports(kit.deps.db, user.id);
  const running = imports.some((i) => i.status === 'queued' || i.status === 'running');
  const body = html`
${problem ? html`<p class="error" role="alert">${problem}</p>` : ''}
<section class="card" aria-labelledby="export-h">
<h2 id="export-h">Export</h2>
<p>Everything you keep, as one file in the listkeeper export format: lists, items, values, chats, and links to attachments (valid for an hour; an import into this account reads your own files without them).</p>
<p><a href="${DATA_PATH}/export.json" download>Download everything (JSON)</a></p>
<form method="get" action="${DATA_PATH}/list.csv">
<label for="list">One list as CSV</label>
<select id="list" name="list">${lists.map((l) => html`<option value="${l.id}">${l.name}</option>`)}</select>
<button type="submit" class="secondary">Download CSV</button>
</form>
</section>
<section class="card" aria-labelledby="import-h">
<h2 id="import-h">Import</h2>
<p>A listkeeper export (JSON), a CSV file, or a project exported from Todoist as CSV. You see what it would do before anything is written.</p>
<form method="post" action="${DATA_PATH}/preview" enctype="multipart/form-data">
<input type="hidden" name="csrf" value="${kit.csrf(ctx)}">
<label for="file">File</label>
<input id="file" name="file" type="file" accept=".json,.csv,text/csv,application/json" required>
<label for="format">Format</label>
<select id="format" name="format"><option value="">Read it from the file</option>${FORMATS.map((f) => html`<option value="${f}">${f}</option>`)}</select>
<label for="target">CSV: add to</label>
<select id="target" name="listId"><option value="">A new list</option>${lists.map((l) => html`<option value="${l.id}">${l.name}</option>`)}</select>
<label for="listName">New list's name</label>
<input id="listName" name="listName" type="text" maxlength="200" placeholder="the file's name">
<button type="submit">Preview</button>
</form>
</section>
<section class="card" aria-labelledby="imports-h">
<h2 id="imports-h">Recent imports</h2>
${imports.length ? html`<ul class="apps">${imports.map(importLine)}</ul>` : html`<p class="muted">None yet.</p>`}
</section>`;
  const text = page('Your data', html`${kit.settingsNav('data')}${body}`, { nav: kit.nav(ctx, user, 'settings') });
  // While an import runs, the page reloads itself every two seconds to show its progress.
  sendPage(
    ctx,
    problem ? status : 200,
    running ? text.replace('<meta name="referrer"', '<meta http-equiv="refresh" content="2">\n<meta name="referrer"') : text,
  );
}

async function showData(kit: PageKit, ctx: Context): Promise<void> {
  const user = await kit.signedIn(ctx);
  if (user) await overview(kit, ctx, user);
}

async function exportWorkspace(kit: PageKit, ctx: Context): Promise<void> {
  const user = await kit.signedIn(ctx);
  if (!user) return;
  const doc = await invoke(kit.asPerson(user), 'export_workspace', { params: {}, body: undefined });
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Disposition', `attachment; filename="listkeeper-export-${new Date().toISOString().slice(0, 10)}.json"`);
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(doc, null, 2);
}

async function exportListCsv(kit: PageKit, ctx: Context): Promise<void> {
  const user = await kit.signedIn(ctx);
  if (!user) return;
  try {
    const csv = await invoke(kit.asPerson(user), 'export_list_csv', { params: { id: String(ctx.query.list ?? '') }, body: undefined });
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Disposition', 'attachment; filename="list.csv"');
    ctx.type = 'text/csv; charset=utf-8';
    ctx.body = csv;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    await overview(kit, ctx, user, err.message);
  }
}

/**
 * A multipart POST of a signed-in person, from this site with this browser's CSRF token, within
 * the API's body limit; else answers. The length and the session are checked before any of the
 * body is read, the token before its file.
 */
async function upload(kit: PageKit, ctx: Context): Promise<({ user: WebUser } & Upload) | null> {
  const limit = kit.deps.config.bodyLimitBytes;
  const declaredLarge = declaredTooLarge(ctx, limit);
  // Not read at all: the connection closes after the answer.
  if (declaredLarge) ctx.set('Connection', 'close');
  const user = await kit.signedIn(ctx);
  if (!user) return null;
  const form = declaredLarge ? 'tooLarge' : await readMultipart(ctx, limit, (token) => kit.fromThisSite(ctx, token));
  if (typeof form === 'string') {
    const problem: Record<Refusal, string> = {
      tooLarge: `The file is too large: send one file of at most ${limit} bytes.`,
      forged: 'This form expired or was sent from another site; send it again.',
      unreadable: `The file could not be read: send one file of at most ${limit} bytes.`,
    };
    await overview(kit, ctx, user, problem[form], form === 'tooLarge' ? 413 : 400);
    return null;
  }
  return { user, ...form };
}

/** The import input a form describes: the file (or the text carried over from the preview) and the choices. */
function inputOf(fields: Record<string, string>, file: { name: string; text: string } | null): Record<string, unknown> {
  const text = file?.text ?? fields.content ?? '';
  const name = file?.name ?? fields.fileName ?? 'Imported';
  const format = (FORMATS as readonly string[]).includes(fields.format ?? '') ? fields.format! : formatOfFile(name, text);
  if (format === 'listkeeper') {
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (err) {
      throw new ApiError('invalid', `The file is not JSON: ${(err as Error).message}`);
    }
    return { format, document };
  }
  const columns = Object.keys(fields)
    .filter((k) => k.startsWith('to:'))
    .map((k) => {
      const column = k.slice(3);
      const type = fields[`type:${column}`];
      const property = fields[`property:${column}`]?.trim();
      return {
        column,
        to: fields[k],
        ...(fields[k] === 'property' && property ? { property } : {}),
        ...(fields[k] === 'property' && type ? { type } : {}),
      };
    });
  return {
    format,
    csv: text,
    ...(fields.listId && format === 'csv' ? { listId: fields.listId } : { listName: fields.listName?.trim() || name.replace(/\.[^.]+$/, '') || 'Imported' }),
    ...(columns.length && format === 'csv' ? { columns } : {}),
  };
}

async function previewImport(kit: PageKit, ctx: Context): Promise<void> {
  const got = await upload(kit, ctx);
  if (!got) return;
  const { user, fields, file } = got;
  try {
    const input = inputOf(fields, file);
    const preview = (await invoke(kit.asPerson(user), 'preview_import', { params: {}, body: input })) as Preview;
    const text = file?.text ?? fields.content ?? '';
    sendPage(
      ctx,
      200,
      page('Check the import', previewBody(kit, ctx, input, preview, text, file?.name ?? fields.fileName ?? ''), { nav: kit.nav(ctx, user, 'settings') }),
    );
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    await overview(kit, ctx, user, err.message);
  }
}

async function startImport(kit: PageKit, ctx: Context): Promise<void> {
  const got = await upload(kit, ctx);
  if (!got) return;
  const { user, fields, file } = got;
  try {
    const started = (await invoke(kit.asPerson(user), 'create_import', { params: {}, body: inputOf(fields, file) })) as ImportDto;
    ctx.redirect(`${DATA_PATH}?import=${started.id}`);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    await overview(kit, ctx, user, err.message);
  }
}

function previewBody(kit: PageKit, ctx: Context, input: Record<string, unknown>, preview: Preview, text: string, fileName: string): Html {
  const csv = input.format === 'csv';
  return html`
<form method="post" action="${DATA_PATH}/import" enctype="multipart/form-data">
<input type="hidden" name="csrf" value="${kit.csrf(ctx)}">
<input type="hidden" name="format" value="${String(input.format)}">
<input type="hidden" name="fileName" value="${fileName}">
${input.listId ? html`<input type="hidden" name="listId" value="${String(input.listId)}">` : ''}
${input.listName ? html`<input type="hidden" name="listName" value="${String(input.listName)}">` : ''}
<textarea name="content" hidden aria-hidden="true">${text}</textarea>
<section class="card">
<p>${preview.total} items in ${preview.lists.length === 1 ? 'one list' : `${preview.lists.length} lists`}. Nothing is written until you start the import.</p>
${preview.warnings.length ? html`<ul>${preview.warnings.map((w) => html`<li>${w}</li>`)}</ul>` : ''}
</section>
${
  csv
    ? html`<section class="card"><h2>Columns</h2>${preview.columns.map(
        (c, n) => html`<fieldset><legend>${c.column} <span class="muted">${c.samples.join(' | ')}</span></legend>
<label for="to-${n}">Read as</label>
<select id="to-${n}" name="to:${c.column}">${TARGETS.map((t) => html`<option value="${t}"${t === c.to ? html` selected` : ''}>${t}</option>`)}</select>
<label for="property-${n}">Property</label>
<input id="property-${n}" name="property:${c.column}" type="text" value="${c.property ?? ''}">
<label for="type-${n}">Type of a new property</label>
<select id="type-${n}" name="type:${c.column}">${TYPES.map((t) => html`<option value="${t}"${t === (c.type ?? '') ? html` selected` : ''}>${t || 'guess'}</option>`)}</select>
</fieldset>`,
      )}<button type="submit" formaction="${DATA_PATH}/preview" class="secondary">Preview again</button></section>`
    : ''
}
${preview.lists.map(
  (l) => html`<section class="card"><h2>${l.listId ? `Into your list ${l.name}` : `A new list: ${l.name}`}</h2>
<p>${l.items} items${l.newProperties.length ? `; new properties: ${l.newProperties.map((p) => `${p.name} (${p.type})`).join(', ')}` : ''}.</p>
${
  l.sample.length
    ? html`<ul>${l.sample.map(
        (s) =>
          html`<li>${s.title ?? '(no title)'}${s.dueAt ? html` <span class="muted">due ${s.dueAt}</span>` : ''}${
            Object.keys(s.values).length
              ? html` <span class="muted">${Object.entries(s.values)
                  .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
                  .join('; ')}</span>`
              : ''
          }</li>`,
      )}</ul>`
    : ''
}
</section>`,
)}
<button type="submit">Start the import</button> <a href="${DATA_PATH}">Cancel</a>
</form>`;
}

function importLine(i: ImportDto): Html {
  const when = i.createdAt.slice(0, 16).replace('T', ' ');
  return html`<li id="import-${i.id}"><strong>${i.format}</strong> · ${i.status} · ${i.progress.done} of ${i.progress.total} items <span class="muted">${when} UTC</span>
<ul>${i.lists.map((l) => html`<li>${l.name}: ${l.status === 'imported' ? html`${l.created} added, ${l.updated} updated` : l.status}${l.error ? html` <span class="error">${l.error}</span>` : ''}</li>`)}</ul>
${i.warnings.length ? html`<details><summary>${i.warnings.length} ${i.warnings.length === 1 ? 'note' : 'notes'}</summary><ul>${i.warnings.map((w) => html`<li>${w}</li>`)}</ul></details>` : ''}</li>`;
}
