/**
 * Your data in and out, on the running service through the SDK: `export` (the whole workspace
 * as JSON, or one list as CSV) and `import` (an export, a CSV, or a Todoist project CSV), with
 * `--preview` showing what would be written and progress while the import runs.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import type { Schemas } from '@listkeeper/sdk';
import { formatOfFile } from '../domain/transfer/import-plan.js';
import { CliError, printJson, printTable, say } from './output.js';
import { connect, type Service } from './service-client.js';

type ImportInput = NonNullable<Parameters<Service['imports']['create']>[0]>;
type Column = NonNullable<ImportInput['columns']>[number];
const TARGETS = ['title', 'body', 'dueAt', 'taskStatus', 'externalId', 'property', 'skip'];
const TYPES = ['text', 'number', 'select', 'multiSelect', 'date', 'checkbox', 'url', 'email'];
const POLL_MS = 500;

/** `Column=target`, `Column=property:Name`, `Column=property:Name:type` → a column mapping. */
export function parseMapping(text: string): Column {
  const at = text.lastIndexOf('=');
  if (at <= 0) throw new CliError(`--map takes Column=target, like 'Notes=body' or 'Cost=property:Price:number'; got '${text}'.`);
  const column = text.slice(0, at);
  const [to, property, type] = text.slice(at + 1).split(':');
  if (!TARGETS.includes(to!)) throw new CliError(`--map '${text}': the target is one of ${TARGETS.join(', ')}.`);
  if (type !== undefined && !TYPES.includes(type)) throw new CliError(`--map '${text}': the type is one of ${TYPES.join(', ')}.`);
  return { column, to: to as Column['to'], ...(property ? { property } : {}), ...(type ? { type: type as Column['type'] } : {}) };
}

interface ImportOptions {
  format?: ImportInput['format'];
  list?: string;
  name?: string;
  map: Column[];
  preview?: boolean;
  wait: boolean;
  json?: boolean;
}

export function registerDataCommands(program: Command): void {
  program
    .command('export')
    .description('Save your whole workspace as one JSON file (listkeeper export format), or one list as CSV (--list).')
    .option('--list <list>', 'one list, by name or id, as CSV')
    .option('-o, --out <file>', "where to write it ('-' for standard output)")
    .action(async (opts: { list?: string; out?: string }) => {
      const { service } = await connect();
      const today = new Date().toISOString().slice(0, 10);
      if (opts.list) {
        const csv = await service.lists.exportCsv({ id: opts.list });
        const rows = Math.max(0, csv.split(/\r?\n/).filter(Boolean).length - 1);
        return write(opts.out ?? `${slug(opts.list)}-${today}.csv`, csv, `${rows} rows of '${opts.list}'`);
      }
      const doc = await service.workspace.export({});
      const items = doc.lists.reduce((n, l) => n + l.items.length, 0);
      return write(opts.out ?? `listkeeper-export-${today}.json`, `${JSON.stringify(doc, null, 2)}\n`, `${doc.lists.length} lists and ${items} items`);
    });

  program
    .command('import')
    .description('Import a file into your workspace: a listkeeper export (JSON), a CSV, or a Todoist project CSV.')
    .argument('<file>', 'the file to import')
    .option('--format <format>', 'listkeeper, csv or todoist (default: read from the file)')
    .option('--list <list>', 'CSV: add the rows to this existing list, by name or id')
    .option('--name <name>', 'CSV or Todoist: the new list’s name (default: the file’s name)')
    .option('--map <column=target>', "CSV: how a column is read, e.g. 'Notes=body', 'Cost=property:Price:number', 'Extra=skip' (repeatable)", collect, [])
    .option('--preview', 'show what would be written, and write nothing')
    .option('--no-wait', 'start the import and print its id without waiting for it')
    .option('--json', 'print the API answer as JSON')
    .action(async (file: string, opts: ImportOptions) => {
      const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
        throw new CliError(`Cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}.`);
      });
      const format = opts.format ?? formatOfFile(file, text);
      if (!['listkeeper', 'csv', 'todoist'].includes(format)) throw new CliError(`--format is listkeeper, csv or todoist; got '${format}'.`);
      const input = importInput(file, text, format, opts);
      const { service } = await connect();
      if (opts.preview) {
        const preview = await service.imports.preview(input);
        return opts.json ? printJson(preview) : showPreview(preview);
      }
      const started = await service.imports.create(input);
      if (!opts.wait)
        return opts.json
          ? printJson(started)
          : say(`Import ${started.id} started: ${started.progress.total} items. Follow it with the API's GET /imports/${started.id}.`);
      const ended = await follow(service, started);
      if (opts.json) printJson(ended);
      else showOutcome(ended);
      if (ended.status !== 'succeeded') throw new CliError(`The import ${ended.status === 'failed' ? 'failed' : 'left some lists out'}; see above.`);
    });
}

function collect(value: string, previous: Column[]): Column[] {
  return [...previous, parseMapping(value)];
}

function importInput(file: string, text: string, format: ImportInput['format'], opts: ImportOptions): ImportInput {
  if (format === 'listkeeper') {
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (err) {
      throw new CliError(`${file} is not JSON: ${(err as Error).message}`);
    }
    return { format, document: document as Schemas['WorkspaceExport'] };
  }
  const name = opts.name ?? (opts.list ? undefined : baseName(file));
  return {
    format,
    csv: text,
    ...(opts.list ? { listId: opts.list } : {}),
    ...(name ? { listName: name } : {}),
    ...(opts.map.length ? { columns: opts.map } : {}),
  };
}

/** Polls the import until it ends, showing progress on standard error (one line, rewritten on a terminal). */
async function follow(service: Service, started: Schemas['Import']): Promise<Schemas['Import']> {
  let current = started;
  let shown = '';
  const tty = process.stderr.isTTY;
  while (['queued', 'running'].includes(current.status)) {
    const line = `Importing: ${current.progress.done} of ${current.progress.total} items (${current.status})`;
    if (line !== shown) process.stderr.write(tty ? `\r${line}` : `${line}\n`);
    shown = line;
    await sleep(POLL_MS);
    current = await service.imports.get({ id: started.id });
  }
  if (tty && shown) process.stderr.write('\n');
  return current;
}

function showOutcome(ended: Schemas['Import']): void {
  say(`Import ${ended.status}: ${ended.progress.done} of ${ended.progress.total} items.`);
  for (const list of ended.lists) {
    if (list.status === 'imported') say(`  ${list.name}: ${list.created} added, ${list.updated} updated (list ${list.listId})`);
    else say(`  ${list.name}: ${list.status}${list.error ? ` — ${list.error}` : ''}`);
  }
  for (const warning of ended.warnings) say(`  note: ${warning}`);
}

function showPreview(preview: Schemas['ImportPreview']): void {
  say(`Would import ${preview.total} items (nothing written yet).`);
  if (preview.columns.length) {
    say('');
    printTable(preview.columns, [
      { header: 'column', value: (c) => c.column },
      { header: 'read as', value: (c) => (c.to === 'property' ? `property ${c.property} (${c.type})` : c.to) },
      { header: 'values', value: (c) => c.samples.join(' | ') },
    ]);
  }
  for (const list of preview.lists) {
    say('');
    say(
      `${list.listId ? `Into your list '${list.name}'` : `A new list '${list.name}'`}: ${list.items} items${list.newProperties.length ? `; new properties: ${list.newProperties.map((p) => `${p.name} (${p.type})`).join(', ')}` : ''}.`,
    );
    for (const item of list.sample) {
      const values = Object.entries(item.values).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`);
      say(`  - ${item.title ?? '(no title)'}${item.dueAt ? ` (due ${item.dueAt})` : ''}${values.length ? ` — ${values.join('; ')}` : ''}`);
    }
  }
  for (const warning of preview.warnings) say(`note: ${warning}`);
}

async function write(out: string, text: string, what: string): Promise<void> {
  if (out === '-') {
    process.stdout.write(text);
    return;
  }
  await writeFile(out, text, { mode: 0o600 });
  say(`Exported ${what} to ${out}.`);
}

function baseName(file: string): string {
  return (file.split(/[\\/]/).pop() ?? file).replace(/\.[^.]+$/, '') || 'Imported';
}

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-|-$/g, '') || 'list'
  );
}
