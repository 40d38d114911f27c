/**
 * Automation runs: starting one on demand (with its refusals), claiming scheduled ones once
 * across every process, and carrying one out in a job. A run's row is claimed before work
 * starts, so a job delivered twice runs once; a run ends by posting its message to the
 * automation's chat (a service message on the automation's item on the Notes list), which
 * is also a line in the person's main conversation.
 * @see openapi/openapi.yaml run_automation
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../../core/config.js';
import type { Jobs } from '../../core/services.js';
import { toolError } from '../../core/errors.js';
import { resolveList } from '../lists/lists.js';
import { postServiceMessage } from '../chat/chat.js';
import { startOfLocalDay } from '../time.js';
import { getAutomation, nextRun, timeZoneOf, type AutomationRow, type RunRow } from './automations.js';
import { ActionFailed, performAction, type RunContext } from './actions.js';

export const AUTOMATION_RUN_JOB = 'automations.run';
export const AUTOMATION_TICK_JOB = 'automations.tick';
/** A run still `running` this long after it started was cut off (the process stopped). */
const STALE_RUN_MS = 15 * 60 * 1000;

/** Runs of `automationId` created since the start of the owner's local day. */
async function runsToday(trx: Knex, automationId: string, timeZone: string, now: Date): Promise<number> {
  const row = (await trx('automation_runs')
    .where({ automation_id: automationId })
    .where('created_at', '>=', startOfLocalDay(now, timeZone))
    .count({ n: '*' })
    .first()) as { n: number };
  return Number(row.n);
}

async function openRun(trx: Knex, automationId: string): Promise<RunRow | undefined> {
  return (await trx('automation_runs').where({ automation_id: automationId }).whereIn('outcome', ['queued', 'running']).first()) as RunRow | undefined;
}

/** Starts a run now (run_automation); refused for a draft, while a run is open, and past the daily limit. */
export async function startManualRun(
  db: Knex,
  jobs: Jobs | undefined,
  config: Config,
  ownerId: string,
  automationId: string,
  now: Date,
): Promise<{ automation: AutomationRow; run: RunRow }> {
  return db.transaction(async (trx) => {
    const automation = await getAutomation(trx, ownerId, automationId, true);
    if (automation.status === 'draft')
      throw toolError(
        `'${automation.name}' is a draft; a draft never runs. Make it active (or paused, to run it only on demand) first: listkeeper automation resume --id ${automation.id}.`,
      );
    const open = await openRun(trx, automation.id);
    if (open)
      throw toolError(
        `'${automation.name}' is already running (run ${open.id}, ${open.outcome} since ${(open.started_at ?? open.created_at).toISOString()}); follow it with get_automation_runs and start it again once it has ended.`,
        { runId: open.id },
      );
    const timeZone = await timeZoneOf(trx, ownerId);
    const count = await runsToday(trx, automation.id, timeZone, now);
    if (count >= config.automationDailyRunLimit) {
      throw toolError(
        `'${automation.name}' ran ${count} times today, its daily limit (${config.automationDailyRunLimit}); it can run again after midnight ${timeZone} time.`,
      );
    }
    if (!jobs) throw new Error('run_automation needs the job queue, and this process runs none');
    const [run] = (await trx('automation_runs')
      .insert({ automation_id: automation.id, owner_id: ownerId, trigger: 'manual', created_at: now })
      .returning('*')) as RunRow[];
    await jobs.sendInTransaction(trx, AUTOMATION_RUN_JOB, { runId: run!.id }, { singletonKey: run!.id });
    return { automation, run: run! };
  });
}

/**
 * The scheduler's tick (a pg-boss cron job, once a minute across all processes): every active
 * automation whose next run is due gets one run row for that tick — the unique
 * (automation, scheduled_for) index makes it once however many ticks race — and a job in
 * the same transaction; its next run moves to the next cron time after now, so ticks missed
 * while the service was down catch up with one run, not many. Also ends runs cut off by a
 * stopped process. Returns the run ids queued.
 */
export async function scheduleDueRuns(db: Knex, jobs: Jobs, config: Config, now: Date, log: Logger): Promise<string[]> {
  const queued: string[] = [];
  await db('automation_runs')
    .where({ outcome: 'running' })
    .where('started_at', '<', new Date(now.getTime() - STALE_RUN_MS))
    .update({ outcome: 'failed', finished_at: now, error: 'The run was cut off: the service stopped while it ran. What it wrote before that stays.' });
  await db.transaction(async (trx) => {
    const due = (await trx('automations as a')
      .join('users as u', 'u.id', 'a.owner_id')
      .where({ 'a.status': 'active' })
      .whereNotNull('a.schedule')
      .where('a.next_run_at', '<=', now)
      .orderBy('a.next_run_at')
      .limit(200)
      .select('a.*', 'u.timezone')
      .forUpdate('a')
      .skipLocked()) as (AutomationRow & { timezone: string })[];
    for (const { timezone: timeZone, ...automation } of due) {
      await trx('automations')
        .where({ id: automation.id })
        .update({ next_run_at: nextRun(automation.schedule!, timeZone, now) });
      const tick = automation.next_run_at!;
      if (await openRun(trx, automation.id)) {
        log.info({ automationId: automation.id, tick }, 'scheduled run skipped: the previous run is still open');
        continue;
      }
      const overLimit = (await runsToday(trx, automation.id, timeZone, now)) >= config.automationDailyRunLimit;
      const [run] = (await trx('automation_runs')
        .insert({
          automation_id: automation.id,
          owner_id: automation.owner_id,
          trigger: 'schedule',
          scheduled_for: tick,
          created_at: now,
          ...(overLimit
            ? { outcome: 'failed', finished_at: now, error: `Not run: the daily limit of ${config.automationDailyRunLimit} runs was reached.` }
            : {}),
        })
        .onConflict(trx.raw('(automation_id, scheduled_for) WHERE scheduled_for IS NOT NULL'))
        .ignore()
        .returning('*')) as RunRow[];
      if (run && !overLimit) {
        await jobs.sendInTransaction(trx, AUTOMATION_RUN_JOB, { runId: run.id }, { singletonKey: run.id });
        queued.push(run.id);
      }
    }
  });
  return queued;
}

/** Carries out one run (the job's handler). A run already claimed or ended is left alone. */
export async function executeRun(db: Knex, config: Config, runId: string, now: () => Date, log: Logger): Promise<RunRow | null> {
  const [claimed] = (await db('automation_runs')
    .where({ id: runId, outcome: 'queued' })
    .update({ outcome: 'running', started_at: now() })
    .returning('*')) as RunRow[];
  if (!claimed) return null;
  const automation = (await db('automations').where({ id: claimed.automation_id }).first()) as AutomationRow | undefined;
  if (!automation) return null;
  const run: RunContext = {
    db,
    config,
    automation,
    runId,
    trigger: claimed.trigger,
    timeZone: await timeZoneOf(db, automation.owner_id),
    now: now(),
    wrote: [],
    digest: null,
    log,
  };
  let error: string | null = null;
  for (const [index, action] of automation.actions.entries()) {
    try {
      run.wrote.push(await performAction(run, action));
    } catch (err) {
      if (!(err instanceof ActionFailed)) log.error({ err, runId, automationId: automation.id }, 'automation action failed unexpectedly');
      error = `Action ${index + 1} (${action.type}) failed: ${err instanceof ActionFailed ? err.message : 'an internal error; it was logged.'}`;
      break;
    }
  }
  const message = runMessage(run, error);
  return db.transaction(async (trx) => {
    await postToChat(trx, automation, runId, message, now());
    const [done] = (await trx('automation_runs')
      .where({ id: runId })
      .update({ outcome: error ? 'failed' : 'succeeded', finished_at: now(), wrote: JSON.stringify(run.wrote), message, error })
      .returning('*')) as RunRow[];
    return done!;
  });
}

/** The message a run leaves the person: what it did, the digest if it made one, and why it stopped. */
function runMessage(run: RunContext, error: string | null): string {
  const how = run.trigger === 'schedule' ? 'ran on schedule' : 'ran on request';
  const lines = [`**${run.automation.name}** ${how}${error ? ' and stopped early' : ''}.`];
  if (run.wrote.length) lines.push('', ...run.wrote.map((w) => `- ${w}`));
  if (run.digest) lines.push('', run.digest.text);
  if (error) lines.push('', `${error} Nothing after it ran.`);
  return lines.join('\n');
}

/**
 * Posts as the service in the automation's chat: the item of the automation on the Notes
 * list, made on the first run (and again if the person deleted it).
 */
async function postToChat(trx: Knex, automation: AutomationRow, runId: string, text: string, now: Date): Promise<void> {
  let itemId = automation.chat_item_id;
  const live = itemId ? await trx('items').where({ id: itemId }).whereNull('deleted_at').first('id') : undefined;
  if (!live) {
    const notes = await resolveList(trx, automation.owner_id, 'notes');
    const [item] = (await trx('items')
      .insert({
        owner_id: automation.owner_id,
        list_id: notes.id,
        title: `Automation: ${automation.name}`,
        body: `What the automation '${automation.name}' did each time it ran is in this item's chat.\n\n${automation.description}`,
        created_at: now,
        updated_at: now,
        edited_at: now,
      })
      .returning('id')) as { id: string }[];
    itemId = item!.id;
    await trx('automations').where({ id: automation.id }).update({ chat_item_id: itemId });
  }
  await postServiceMessage(trx, itemId!, { text: text.slice(0, 20000), authorName: automation.name.slice(0, 60), messageKey: `automation-run:${runId}` });
}
