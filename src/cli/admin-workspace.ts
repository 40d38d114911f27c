/**
 * Admin commands on one account's workspace, on the server's database: automation and memory.
 * Their writes are the person's operations, called as the account (as-person.ts).
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { listAutomations, timeZoneOf } from '../domain/automations/automations.js';
import { listMemory } from '../domain/accounts/memory.js';
import { accountId } from './admin-accounts.js';
import { callAsPerson } from './as-person.js';
import { withDatabase } from './admin-database.js';
import { printJson } from './output.js';

/** Adds `automation` and `memory`. */
export function registerWorkspaceCommands(program: Command): void {
  registerAutomationCommands(program);
  registerMemoryCommands(program);
}

/** `automation create|list|pause|resume|delete`. */
function registerAutomationCommands(program: Command): void {
  const automation = program.command('automation').description('Automations: standing orders the service runs on a schedule or on demand.');
  automation
    .command('create')
    .description(
      "Create an automation from a JSON or YAML file: name, description, status (active, paused, draft), schedule (cron in the account's time zone), actions (see docs/automations.md).",
    )
    .requiredOption('--email <email>', "the account's email address")
    .requiredOption('--file <path>', 'the definition, .json or .yaml')
    .action(async (opts: { email: string; file: string }) => {
      const text = await readFile(opts.file, 'utf8');
      const definition: unknown = /\.ya?ml$/i.test(opts.file) ? parseYaml(text) : JSON.parse(text);
      await withDatabase(async ({ db }) => {
        const made = await callAsPerson(db, await accountId(db, opts.email), 'create_automation', { definition: definition as Record<string, unknown> });
        process.stdout.write(`Created automation '${made.name}' (${made.id}), ${made.status}${made.nextRunAt ? `, next run ${made.nextRunAt}` : ''}.\n`);
      });
    });
  automation
    .command('list')
    .description("List an account's automations.")
    .requiredOption('--email <email>', "the account's email address")
    .option('--json', 'print JSON, for scripts')
    .action(async (opts: { email: string; json?: boolean }) => {
      await withDatabase(async ({ db }) => {
        const userId = await accountId(db, opts.email);
        const [rows, tz] = [await listAutomations(db, userId), await timeZoneOf(db, userId)];
        if (opts.json) {
          const out = rows.map((r) => ({
            id: r.id,
            name: r.name,
            description: r.description,
            status: r.status,
            schedule: r.schedule,
            nextRunAt: r.next_run_at?.toISOString() ?? null,
          }));
          return printJson({ timezone: tz, automations: out });
        }
        if (rows.length === 0) process.stdout.write('No automations.\n');
        for (const r of rows)
          process.stdout.write(
            `${r.id}  ${r.status.padEnd(6)}  ${(r.schedule ?? 'on demand').padEnd(14)}  ${r.next_run_at ? `next ${r.next_run_at.toISOString()} (${tz})` : 'no next run'}  ${r.name}: ${r.description}\n`,
          );
      });
    });
  for (const [name, status, what] of [
    ['pause', 'paused', 'Pause: no scheduled runs (it can still run on demand).'],
    ['resume', 'active', 'Make active: scheduled runs resume from now.'],
  ] as const) {
    automation
      .command(name)
      .description(what)
      .requiredOption('--email <email>', "the account's email address")
      .requiredOption('--id <id>', "the automation's id")
      .action(async (opts: { email: string; id: string }) => {
        await withDatabase(async ({ db }) => {
          const row = await callAsPerson(db, await accountId(db, opts.email), 'set_automation_status', { id: opts.id, status });
          process.stdout.write(`'${row.name}' is ${row.status}${row.nextRunAt ? `; next run ${row.nextRunAt}` : ''}.\n`);
        });
      });
  }
  automation
    .command('delete')
    .description('Delete an automation and its run history (its chat item stays on the Notes list).')
    .requiredOption('--email <email>', "the account's email address")
    .requiredOption('--id <id>', "the automation's id")
    .action(async (opts: { email: string; id: string }) => {
      await withDatabase(async ({ db }) => {
        const row = await callAsPerson(db, await accountId(db, opts.email), 'delete_automation', { id: opts.id });
        process.stdout.write(`Deleted automation '${row.name}'.\n`);
      });
    });
}

/** `memory add|list|remove`. */
function registerMemoryCommands(program: Command): void {
  const memory = program.command('memory').description('What the person asked the AI to remember (agents read it in get_context).');
  memory
    .command('add')
    .description('Remember one thing (up to 500 characters).')
    .requiredOption('--email <email>', "the account's email address")
    .argument('<text>', 'what to remember')
    .action(async (text: string, opts: { email: string }) => {
      await withDatabase(async ({ db }) => {
        const row = await callAsPerson(db, await accountId(db, opts.email), 'add_memory', { text });
        process.stdout.write(`Remembered (${row.id}).\n`);
      });
    });
  memory
    .command('list')
    .description('List what is remembered, oldest first, with ids.')
    .requiredOption('--email <email>', "the account's email address")
    .option('--json', 'print JSON, for scripts')
    .action(async (opts: { email: string; json?: boolean }) => {
      await withDatabase(async ({ db }) => {
        const rows = await listMemory(db, await accountId(db, opts.email));
        if (opts.json) return printJson(rows.map((r) => ({ id: r.id, text: r.text })));
        if (rows.length === 0) process.stdout.write('Nothing is remembered.\n');
        for (const r of rows) process.stdout.write(`${r.id}  ${r.text}\n`);
      });
    });
  memory
    .command('remove')
    .description('Forget one thing by its id.')
    .requiredOption('--email <email>', "the account's email address")
    .requiredOption('--id <id>', 'the id shown by memory list')
    .action(async (opts: { email: string; id: string }) => {
      await withDatabase(async ({ db }) => {
        const row = await callAsPerson(db, await accountId(db, opts.email), 'remove_memory', { id: opts.id });
        process.stdout.write(`Forgot: ${row.text}\n`);
      });
    });
}
