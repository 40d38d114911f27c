/**
 * A valid sample input for every operation, derived from the OpenAPI document: the request
 * body's `example`, then for each required parameter its schema's example, default, first
 * enum value or a value of its type. Ids the example cannot know come from a small fixture
 * per operation that makes the list or item first, through the operation layer itself.
 * Where no operation can make what is needed (an automation), the sample keeps a placeholder id and says so.
 */
import { randomUUID } from 'node:crypto';
import { openapiDocument } from '../../src/generated/openapi-document.js';
import { invoke } from '../../src/operations/dispatch.js';
import type { OperationSpec, JsonSchema } from '../../src/core/operation-spec.js';
import type { OperationContext } from '../../src/core/context.js';

export interface Sample {
  input: Record<string, unknown>;
  /** Names of the fixture pieces that no operation can make (see NO_FIXTURE_POSSIBLE). */
  placeholders: string[];
}

type Paths = Record<string, Record<string, { requestBody?: { content?: Record<string, { example?: unknown }> } }>>;

/** A value for one schema when the spec gives no example. */
export function valueFor(schema: JsonSchema): unknown {
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum.find((v: unknown) => v !== null);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      if (schema.format === 'uuid') return randomUUID();
      if (schema.format === 'date-time') return new Date().toISOString();
      return 'passport';
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return [valueFor(schema.items ?? { type: 'string' })];
    default:
      return {};
  }
}

/** The example body plus generated required parameters: the input before fixtures. */
export function baseInput(op: OperationSpec): Record<string, unknown> {
  const paths = openapiDocument.paths as Paths;
  const example = paths[op.path]?.[op.method.toLowerCase()]?.requestBody?.content?.['application/json']?.example;
  const input: Record<string, unknown> = example && typeof example === 'object' ? structuredClone(example as Record<string, unknown>) : {};
  const paramSchemas = (op.paramsSchema.properties ?? {}) as Record<string, JsonSchema>;
  for (const p of op.params) if (p.required && input[p.name] === undefined) input[p.name] = valueFor(paramSchemas[p.name] ?? {});
  return input;
}

/** Calls an operation for a fixture. */
async function make(
  ctx: OperationContext,
  operationId: string,
  input: Record<string, unknown>,
  params: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  return (await invoke(ctx, operationId, { params, body: input })) as Record<string, unknown>;
}

const makeList = async (ctx: OperationContext) =>
  String((await make(ctx, 'create_list', { name: 'Books', icon: '📚', properties: [{ name: 'Author', type: 'text' }] })).id);
const makeItem = async (ctx: OperationContext) => {
  const created = await make(ctx, 'create_items', { listId: 'tasks', items: [{ title: 'Renew passport', body: 'Photo booth first.' }] });
  const item = (created.items as { id: string }[] | undefined)?.[0];
  if (!item) throw new Error(`create_items made no item: ${JSON.stringify(created)}`);
  return item.id;
};

type Fixture = (ctx: OperationContext) => Promise<Record<string, unknown>>;

/** Per operation: the input fields that need something made first. */
export const fixtures: Record<string, Fixture> = {
  update_list: async (ctx) => ({ id: await makeList(ctx) }),
  delete_list: async (ctx) => ({ id: await makeList(ctx) }),
  get_item: async (ctx) => ({ id: await makeItem(ctx) }),
  read_chat_messages: async (ctx) => ({ id: await makeItem(ctx) }),
  post_chat_message: async (ctx) => ({ id: await makeItem(ctx) }),
  update_items: async (ctx) => ({ items: [{ itemId: await makeItem(ctx) }] }),
  delete_items: async (ctx) => ({ itemIds: [await makeItem(ctx)] }),
  move_items: async (ctx) => ({ itemIds: [await makeItem(ctx)] }),
  search: async (ctx) => {
    await makeItem(ctx);
    return { q: 'passport' };
  },
  restore_deleted: async (ctx) => {
    const id = await makeItem(ctx);
    await make(ctx, 'delete_items', { itemIds: [id] });
    return { type: 'item', id };
  },
  // Reads compare more when there is something to read.
  get_context: async (ctx) => {
    await makeItem(ctx);
    return {};
  },
  list_items: async (ctx) => {
    await makeItem(ctx);
    return { listId: 'tasks' };
  },
  query_items: async (ctx) => {
    await makeItem(ctx);
    return {};
  },
  list_deleted: async (ctx) => {
    await make(ctx, 'delete_items', { itemIds: [await makeItem(ctx)] });
    return {};
  },
};

/**
 * Automations have no operation that makes one: get_automation_runs and run_automation get
 * a random id, and both interfaces must refuse it alike.
 */
export const NO_FIXTURE_POSSIBLE = new Set(['get_automation_runs', 'run_automation']);

/** The sample input of `op` in the workspace of `ctx`. */
export async function sampleInput(op: OperationSpec, ctx: OperationContext): Promise<Sample> {
  const input = baseInput(op);
  const fixture = fixtures[op.operationId];
  if (!fixture) return { input, placeholders: NO_FIXTURE_POSSIBLE.has(op.operationId) ? ['automation'] : [] };
  return { input: { ...input, ...(await fixture(ctx)) }, placeholders: [] };
}
