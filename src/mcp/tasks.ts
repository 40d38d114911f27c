/**
 * The tasks extension (io.modelcontextprotocol/tasks) on 2026-07-28: a call whose work runs on
 * past its answer, an import or an automation run, answers a client that declares the
 * extension with a task handle, and `tasks/get` follows the work to its result.
 *
 * A task is a name for work the service already keeps: the import's or the run's own row in
 * Postgres, read through the operations as the caller (get_import, get_automation_runs). So a
 * task is readable from any process, exists as soon as the call answers (its row was committed
 * before), is bound to the person (another account's token finds no such task) and lives as
 * long as the import or the run is kept; no table of its own is needed.
 * @see https://github.com/modelcontextprotocol/ext-tasks
 * @see docs/mcp-2026.md
 */
import * as z from 'zod';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { OperationContext } from '../core/context.js';
import { ApiError } from '../core/errors.js';
import { invoke } from '../operations/dispatch.js';
import { method, type McpMethod } from './methods.js';
import { toolResult } from './tools.js';
import { MODERN_ERROR, type ClientCapabilities } from './versions.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const INVALID_PARAMS = -32602;
const POLL_INTERVAL_MS = 1000;

type Status = 'working' | 'completed';

/** The state of a task as `tasks/get` answers it (a DetailedTask). */
export interface TaskState {
  taskId: string;
  status: Status;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: null;
  pollIntervalMs: number;
  result?: CallToolResult & { resultType: 'complete' };
}

/** True when the request's client declares the extension. */
export function takesTasks(capabilities: ClientCapabilities): boolean {
  const extensions = capabilities.extensions;
  return typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION in extensions;
}

interface ImportDto {
  id: string;
  status: 'queued' | 'running' | 'succeeded' | 'partial' | 'failed';
  progress: { done: number; total: number };
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}
interface RunDto {
  runId: string;
  outcome: 'queued' | 'running' | 'succeeded' | 'failed';
  startedAt: string;
  finishedAt: string | null;
}
interface RunAnswer {
  id: string;
  name: string;
  runId: string;
  status: string;
}

/** The tools whose answer can be a task: the id it takes from their answer, and how to read it. */
const KINDS = {
  create_import: { taskId: (out: ImportDto) => `import.${out.id}` },
  run_automation: { taskId: (out: RunAnswer) => `run.${out.id}.${out.runId}` },
} as const;

/** The task handle for a call's answer, when the tool's work runs on past it; else null. */
export async function taskFor(opContext: OperationContext, tool: string, result: CallToolResult): Promise<Record<string, unknown> | null> {
  const kind = KINDS[tool as keyof typeof KINDS];
  if (!kind || result.isError || !result.structuredContent) return null;
  const state = await readTask(opContext, kind.taskId(result.structuredContent as never));
  if (!state) return null;
  const { result: _done, ...task } = state;
  return task;
}

/** Reads a task of the caller's; null when there is none by that id. */
async function readTask(opContext: OperationContext, taskId: string): Promise<TaskState | null> {
  const [kind, id, runId] = taskId.split('.');
  try {
    if (kind === 'import' && id && !runId) return importTask(taskId, (await invoke(opContext, 'get_import', { params: { id }, body: undefined })) as ImportDto);
    if (kind === 'run' && id && runId) return await runTask(opContext, taskId, id, runId);
  } catch (err) {
    if (err instanceof ApiError && (err.code === 'notFound' || err.code === 'invalid')) return null;
    throw err;
  }
  return null;
}

function importTask(taskId: string, dto: ImportDto): TaskState {
  const base = {
    taskId,
    createdAt: dto.createdAt,
    lastUpdatedAt: dto.finishedAt ?? dto.startedAt ?? dto.createdAt,
    ttlMs: null,
    pollIntervalMs: POLL_INTERVAL_MS,
  };
  if (dto.status === 'queued' || dto.status === 'running')
    return {
      ...base,
      status: 'working',
      statusMessage: `${dto.status === 'queued' ? 'Queued' : 'Importing'}: ${dto.progress.done} of ${dto.progress.total} items written.`,
    };
  const result = toolResult('create_import', {}, dto as unknown as Record<string, unknown>);
  return {
    ...base,
    status: 'completed',
    statusMessage: `The import ${dto.status === 'partial' ? 'partly succeeded' : dto.status}.`,
    result: { ...result, ...(dto.status === 'failed' ? { isError: true } : {}), resultType: 'complete' },
  };
}

/** Pages of runs read to find one (newest first): a run this old is past any caller's poll. */
const RUN_PAGES = 5;

async function runTask(opContext: OperationContext, taskId: string, automationId: string, runId: string): Promise<TaskState | null> {
  let cursor: string | undefined;
  for (let page = 0; page < RUN_PAGES; page++) {
    const answer = (await invoke(opContext, 'get_automation_runs', {
      params: { id: automationId, limit: 20, ...(cursor ? { cursor } : {}) },
      body: undefined,
    })) as {
      automation: { name: string; status: string };
      runs: RunDto[];
      nextCursor: string | null;
    };
    const run = answer.runs.find((r) => r.runId === runId);
    if (run) return runState(taskId, { id: automationId, name: answer.automation.name, runId, status: answer.automation.status }, run);
    if (!answer.nextCursor) return null;
    cursor = answer.nextCursor;
  }
  return null;
}

function runState(taskId: string, automation: RunAnswer, run: RunDto): TaskState {
  const base = { taskId, createdAt: run.startedAt, lastUpdatedAt: run.finishedAt ?? run.startedAt, ttlMs: null, pollIntervalMs: POLL_INTERVAL_MS };
  if (run.outcome === 'queued' || run.outcome === 'running') return { ...base, status: 'working', statusMessage: `The run is ${run.outcome}.` };
  const result = toolResult('run_automation', {}, automation as unknown as Record<string, unknown>);
  const line = `The run ${run.outcome}: ${JSON.stringify(run)}`;
  return {
    ...base,
    status: 'completed',
    statusMessage: `The run ${run.outcome}.`,
    result: {
      ...result,
      content: [{ type: 'text', text: line }, ...result.content],
      ...(run.outcome === 'failed' ? { isError: true } : {}),
      resultType: 'complete',
    },
  };
}

const TaskParams = z.looseObject({ taskId: z.string().min(1) });
const GetRequest = z.object({ method: z.literal('tasks/get'), params: TaskParams });
const UpdateRequest = z.object({
  method: z.literal('tasks/update'),
  params: TaskParams.extend({ inputResponses: z.record(z.string(), z.unknown()).optional() }),
});
const CancelRequest = z.object({ method: z.literal('tasks/cancel'), params: TaskParams });

/** tasks/get, tasks/update and tasks/cancel, for one request's caller and capabilities. */
export function taskMethods(opContext: OperationContext, capabilities: ClientCapabilities): McpMethod[] {
  const known = async (taskId: string): Promise<TaskState> => {
    if (!takesTasks(capabilities))
      throw new McpError(MODERN_ERROR.missingClientCapability, `Tasks are for clients that declare the ${TASKS_EXTENSION} extension in their capabilities.`, {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
    const state = await readTask(opContext, taskId);
    if (!state) throw new McpError(INVALID_PARAMS, `Failed to retrieve task: no task ${taskId} of yours.`);
    return state;
  };
  return [
    method(GetRequest, async (request) => ({ ...(await known(request.params.taskId)) })),
    // listkeeper's tasks never ask for input, so an update has nothing to answer; cancelling is
    // acknowledged, and the import or run goes on (cancellation is cooperative).
    method(UpdateRequest, async (request) => {
      await known(request.params.taskId);
      return {};
    }),
    method(CancelRequest, async (request) => {
      await known(request.params.taskId);
      return {};
    }),
  ];
}
