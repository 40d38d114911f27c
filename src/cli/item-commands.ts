/**
 * The people commands on lists and items, against the running service through the SDK:
 * add, ls, done, edit, rm, search, lists, open. Tables for people, `--json` for scripts.
 */
import { Option, type Command } from 'commander';
import type { Schemas } from '@listkeeper/sdk';
import { describeDue, machineTimeZone, parseDue, shortDue, type Due } from './due-dates.js';
import { ALL_STATUSES, findItem, named, OPEN_STATUSES, type TaskStatus } from './item-resolve.js';
import { openInBrowser } from './open-browser.js';
import { CliError, printJson, printTable, say } from './output.js';
import { connect, type Connection, type Service } from './service-client.js';

const STATUS_WORDS: Record<TaskStatus, string> = { todo: 'todo', inProgress: 'in progress', completed: 'done' };
const STATUS_INPUT: Record<string, TaskStatus> = { todo: 'todo', 'in-progress': 'inProgress', done: 'completed' };

/** The person's time zone, from get_context (dates typed are read in it). */
async function timeZoneOf(service: Service): Promise<string> {
  return (await service.context.get({})).user.timezone;
}

/** `--due` read in the person's time zone, or a refusal that shows what is understood. */
function dueOrRefuse(text: string, timeZone: string): Due {
  const due = parseDue(text, timeZone);
  if (!due) throw new CliError(`Could not read '${text}' as one date (in ${timeZone}); try 'tomorrow 9am', 'next friday', or 2026-12-01 14:00.`);
  return due;
}

function dueSentence(item: { dueAt: string | null; hasDueTime: boolean | null }, timeZone: string): string {
  return item.dueAt ? `due ${describeDue(new Date(item.dueAt), item.hasDueTime === true, timeZone)} (${item.dueAt})` : 'no due date';
}

/** Shown dates are in the zone saved at sign-in, else this machine's: one call less than asking each time. */
function displayZone(connection: Connection): string {
  return connection.credentials.timezone ?? machineTimeZone();
}

/** Adds the item and list commands; returns `search`, which the admin `search reindex` hangs under. */
export function registerItemCommands(program: Command): Command {
  addCommand(program);
  lsCommand(program);
  doneCommand(program);
  editCommand(program);
  rmCommand(program);
  const search = searchCommand(program);
  listsCommand(program);
  openCommand(program);
  return search;
}

function addCommand(program: Command): void {
  program
    .command('add')
    .description('Add an item: to your Tasks list, or to --list.')
    .argument('<title...>', 'the title (quotes optional)')
    .option('--list <list>', 'the list, by name or id (default: Tasks)')
    .option('--due <when>', "a due date in words, read in your time zone: 'tomorrow 9am', 'next friday', 2026-12-01")
    .option('--repeat <rule>', "repeat it: 'every weekday at 9', 'every 2 weeks on Monday', or an RRULE")
    .option('--json', 'print the created item as JSON')
    .action(async (words: string[], opts: { list?: string; due?: string; repeat?: string; json?: boolean }) => {
      const { service } = await connect();
      const timeZone = opts.due || opts.repeat ? await timeZoneOf(service) : undefined;
      const due = opts.due ? dueOrRefuse(opts.due, timeZone!) : undefined;
      const title = words.join(' ');
      const made = await service.items.create({
        ...(opts.list ? { listId: opts.list } : {}),
        items: [{ title, ...(due ? { dueAt: due.value } : {}), ...(opts.repeat ? { recurrence: opts.repeat } : {}) }],
      });
      if (made.failed.length > 0) throw new CliError(made.failed[0]!.reason);
      const item = made.items[0]!;
      if (opts.json) return printJson(item);
      const repeats = item.recurrence ? `, repeats ${item.recurrence.text}` : '';
      say(`Added ${named(item)} to ${made.listName} (${item.id})${timeZone ? `, ${dueSentence(item, timeZone)}` : ''}${repeats}.`);
    });
}

function lsCommand(program: Command): void {
  program
    .command('ls')
    .description('Show the open items on your task lists, or on one list.')
    .argument('[list]', 'a list, by name or id (default: every task list)')
    .option('-a, --all', 'completed tasks too')
    .option('--limit <n>', 'at most this many (1-200)', (v) => Number.parseInt(v, 10), 50)
    .option('--json', 'print the API answer as JSON')
    .action(async (list: string | undefined, opts: { all?: boolean; limit: number; json?: boolean }) => {
      const connection = await connect();
      const { service } = connection;
      const page = await service.items.list({ ...(list ? { listId: list } : {}), ...(opts.all ? { taskStatus: ALL_STATUSES } : {}), limit: opts.limit });
      if (opts.json) return printJson(page);
      const where = page.listName ? `'${page.listName}'` : 'your task lists';
      if (page.items.length === 0) return say(opts.all ? `Nothing on ${where}.` : `Nothing open on ${where}.`);
      const zone = displayZone(connection);
      const tasks = !list || page.items.some((i) => i.taskStatus !== null);
      const listNames = !list && new Set(page.items.map((i) => i.listId)).size > 1 ? await namesOfLists(service) : null;
      printTable(page.items, [
        { header: 'id', value: (i) => i.id },
        ...(tasks
          ? [
              { header: 'status', value: (i: Schemas['ItemRow']) => (i.taskStatus ? STATUS_WORDS[i.taskStatus] : '') },
              { header: 'due', value: (i: Schemas['ItemRow']) => shortDue(i.dueAt, i.hasDueTime, zone) },
            ]
          : []),
        ...(listNames ? [{ header: 'list', value: (i: Schemas['ItemRow']) => listNames.get(i.listId) ?? '' }] : []),
        { header: 'title', value: (i) => i.title ?? '' },
      ]);
    });
}

function doneCommand(program: Command): void {
  program
    .command('done')
    .description('Mark a task completed.')
    .argument('<item...>', 'its id, or the start of its title')
    .option('--list <list>', 'look for it on this list only')
    .option('--json', 'print the updated item as JSON')
    .action(async (ref: string[], opts: { list?: string; json?: boolean }) => {
      const { service } = await connect();
      const item = await findItem(service, ref.join(' '), { list: opts.list, statuses: OPEN_STATUSES });
      const result = await service.items.update({ items: [{ itemId: item.id }], taskStatus: 'completed' });
      const updated = result.items[0]!;
      if (opts.json) return printJson(updated);
      // A repeating task is not left completed: the service moves it to its next occurrence.
      if (updated.taskStatus !== 'completed' && updated.recurrence)
        return say(`Done: ${named(updated)}; it repeats ${updated.recurrence.text}, next ${dueSentence(updated, await timeZoneOf(service))}.`);
      say(`Done: ${named(updated)}.`);
    });
}

function editCommand(program: Command): void {
  program
    .command('edit')
    .description('Change the title, due date, repetition or status of an item.')
    .argument('<item...>', 'its id, or the start of its title')
    .option('--title <title>', 'the new title')
    .option('--due <when>', "a due date in words ('friday 5pm'), or 'none' to clear it")
    .option('--repeat <rule>', "repeat it: 'every weekday at 9', an RRULE, or 'none' to stop it")
    .addOption(new Option('--status <status>', 'the new status').choices(Object.keys(STATUS_INPUT)))
    .option('--list <list>', 'look for it on this list only')
    .option('--json', 'print the updated item as JSON')
    .action(async (ref: string[], opts: { title?: string; due?: string; repeat?: string; status?: string; list?: string; json?: boolean }) => {
      if ([opts.title, opts.due, opts.repeat, opts.status].every((o) => o === undefined))
        throw new CliError('Say what to change: --title, --due, --repeat or --status.');
      const status = opts.status === undefined ? undefined : STATUS_INPUT[opts.status];
      const { service } = await connect();
      const item = await findItem(service, ref.join(' '), { list: opts.list, statuses: ALL_STATUSES });
      const clear = opts.due?.trim().toLowerCase() === 'none';
      const timeZone = opts.due !== undefined || opts.repeat !== undefined ? await timeZoneOf(service) : undefined;
      const due = opts.due !== undefined && !clear ? dueOrRefuse(opts.due, timeZone!) : undefined;
      const repeat = opts.repeat === undefined ? undefined : opts.repeat.trim().toLowerCase() === 'none' ? '' : opts.repeat;
      const result = await service.items.update({
        items: [{ itemId: item.id, ...(opts.title !== undefined ? { title: opts.title } : {}), ...(repeat !== undefined ? { recurrence: repeat } : {}) }],
        ...(status ? { taskStatus: status } : {}),
        ...(clear ? { dueAt: 'none' } : due ? { dueAt: due.value } : {}),
      });
      const updated = result.items[0]!;
      if (opts.json) return printJson(updated);
      // What the service answered, not what was asked: a rule or a status can move the due date.
      const changes = [
        ...(opts.title !== undefined ? [`title ${named(updated)}`] : []),
        ...(timeZone ? [dueSentence(updated, timeZone)] : []),
        ...(repeat !== undefined ? [updated.recurrence ? `repeats ${updated.recurrence.text}` : 'does not repeat'] : []),
        ...(status ? [`status ${updated.taskStatus ? STATUS_WORDS[updated.taskStatus] : 'none'}`] : []),
      ];
      say(`Updated ${named(item)}: ${changes.join(', ')}.`);
    });
}

function rmCommand(program: Command): void {
  program
    .command('rm')
    .description('Move an item to the trash (it can be restored for about 30 days).')
    .argument('<item...>', 'its id, or the start of its title')
    .option('--list <list>', 'look for it on this list only')
    .option('--json', 'print the API answer as JSON')
    .action(async (ref: string[], opts: { list?: string; json?: boolean }) => {
      const { service } = await connect();
      const item = await findItem(service, ref.join(' '), { list: opts.list, statuses: ALL_STATUSES });
      const result = await service.items.delete({ itemIds: [item.id] });
      if (result.refused.length > 0) throw new CliError(`${named(item)} is not yours to delete (it was shared with you, or is already in the trash).`);
      if (opts.json) return printJson(result);
      say(`Moved ${named(item)} to the trash.`);
    });
}

function searchCommand(program: Command): Command {
  return program
    .command('search')
    .description('Search your items by meaning and words, best first.')
    .argument('[query...]', 'what to look for')
    .option('--limit <n>', 'at most this many (1-20)', (v) => Number.parseInt(v, 10), 10)
    .option('--json', 'print the API answer as JSON')
    .action(async (words: string[], opts: { limit: number; json?: boolean }, command: Command) => {
      if (words.length === 0) return command.help({ error: true });
      const { service } = await connect();
      const q = words.join(' ');
      const found = await service.search.query({ q, limit: opts.limit });
      if (opts.json) return printJson(found);
      if (found.results.length === 0) return say(`Nothing found for '${q}'.`);
      printTable(found.results, [
        { header: 'id', value: (r) => r.itemId },
        { header: 'list', value: (r) => r.listName },
        { header: 'title', value: (r) => r.title ?? r.passage.split('\n')[0] ?? '' },
      ]);
    });
}

function listsCommand(program: Command): void {
  program
    .command('lists')
    .description('Show your lists, with their open items.')
    .option('--json', 'print the API answer as JSON')
    .action(async (opts: { json?: boolean }) => {
      const { service } = await connect();
      const answer = await service.lists.list({ suppressOptions: true });
      if (opts.json) return printJson(answer);
      printTable(answer.lists, [
        { header: 'id', value: (l) => l.id },
        { header: 'open', value: (l) => String(l.itemCount) },
        { header: 'kind', value: (l) => l.role },
        { header: 'name', value: (l) => (l.icon ? `${l.icon} ${l.name}` : l.name) },
      ]);
    });
}

function openCommand(program: Command): void {
  program
    .command('open')
    .description("Print an item's web page, and open it in the browser when run in a terminal.")
    .argument('<item...>', 'its id, or the start of its title')
    .option('--list <list>', 'look for it on this list only')
    .option('--no-browser', 'only print the address')
    .action(async (ref: string[], opts: { list?: string; browser: boolean }) => {
      const { service } = await connect();
      const found = await findItem(service, ref.join(' '), { list: opts.list, statuses: ALL_STATUSES });
      // An item found by id was read whole already; one found by title is read for its address.
      const webUrl = (found as { webUrl?: string }).webUrl ?? (await service.items.get({ id: found.id })).webUrl;
      say(webUrl);
      if (opts.browser && process.stdout.isTTY) openInBrowser(webUrl);
    });
}

/** List names by id, for the list column of the task lists' table. */
async function namesOfLists(service: Service): Promise<Map<string, string>> {
  const { lists } = await service.lists.list({ suppressOptions: true });
  return new Map(lists.map((l) => [l.id, l.name]));
}
