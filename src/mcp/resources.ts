/**
 * MCP resources, prompts and completions, over the same operations as the tools: each list is a
 * resource (`listkeeper://lists/{listId}`, read as list_items' answer), a template addresses any
 * list by id or name, prompts fit a task service (plan my day, weekly review, triage the inbox),
 * and arguments that name a list or a property complete from the workspace.
 */
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ErrorCode,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { OperationContext } from '../core/context.js';
import { ApiError } from '../core/errors.js';
import { invoke } from '../operations/dispatch.js';
import { method, type McpMethod } from './methods.js';

const LIST_URI = 'listkeeper://lists/';
const TEMPLATE = `${LIST_URI}{listId}`;

interface ListSummary {
  id: string;
  name: string;
  itemCount?: number;
  properties: { id: string; name: string }[];
}

async function lists(ctx: OperationContext): Promise<ListSummary[]> {
  return ((await invoke(ctx, 'list_lists', { params: { suppressOptions: true }, body: undefined })) as { lists: ListSummary[] }).lists;
}

/** The prompts: a name, what it is for, its arguments, and the instruction it gives. */
const PROMPTS = [
  {
    name: 'plan_my_day',
    title: 'Plan my day',
    description: 'Reads what is overdue and due today and proposes an order for the day.',
    arguments: [{ name: 'list', description: 'A list to plan from (default: the Tasks set).', required: false }],
    text: (args: Record<string, string>) =>
      `Plan my day. Call get_context for today's overview, then list_items${args.list ? ` with listId "${args.list}"` : ''} with taskStatus todo,inProgress and dueBefore the end of today. ` +
      'Propose an order for the day: overdue first, then what is due today, with time estimates. Ask before changing anything; change due dates with update_items.',
  },
  {
    name: 'weekly_review',
    title: 'Weekly review',
    description: 'Walks through what was done this week, what is open, and what has no due date.',
    arguments: [{ name: 'list', description: 'A list to review (default: the Tasks set).', required: false }],
    text: (args: Record<string, string>) =>
      `Run my weekly review${args.list ? ` of the list "${args.list}"` : ''}. With list_items: what I completed in the last 7 days (completedAfter), what is open and overdue, and open tasks without a due date. ` +
      'Summarise each group briefly, then suggest what to drop, defer or schedule. Ask before changing anything.',
  },
  {
    name: 'triage_inbox',
    title: 'Triage the inbox',
    description: 'Sorts new, unsorted items: move, schedule, or delete each, with the person deciding.',
    arguments: [{ name: 'list', description: 'The list that acts as the inbox.', required: true }],
    text: (args: Record<string, string>) =>
      `Triage the list "${args.list}". Read it with list_items. For each item suggest one of: move it to a better list (move_items), give it a due date (update_items), or delete it (delete_items). ` +
      'Show the suggestions as a table first and wait for my go-ahead before writing anything.',
  },
  {
    name: 'summarize_by',
    title: 'Summarise a list by a property',
    description: 'Counts and summarises the items of a list grouped by one of its properties (e.g. Status, Priority).',
    arguments: [
      { name: 'list', description: 'The list.', required: true },
      { name: 'property', description: 'The property to group by.', required: true },
    ],
    text: (args: Record<string, string>) =>
      `Summarise the list "${args.list}" grouped by its property "${args.property}". Use query_items with mode "count" and a where on "${args.property}" for each value, ` +
      'then list the largest groups with a few example titles each. Read only: change nothing.',
  },
] as const;

/** The resources, prompts and completions methods, over one caller's operation context. */
export function resourceMethods(ctx: OperationContext): McpMethod[] {
  return [
    method(ListResourcesRequestSchema, async () => ({
      resources: (await lists(ctx)).map((l) => ({
        uri: `${LIST_URI}${l.id}`,
        name: l.name,
        title: l.name,
        description: `The items of '${l.name}' (${l.itemCount ?? 0} open), as list_items answers.`,
        mimeType: 'application/json',
      })),
    })),
    method(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: [
        {
          uriTemplate: TEMPLATE,
          name: 'list',
          title: 'A list',
          description: 'The items of a list, by id or name (as list_items answers).',
          mimeType: 'application/json',
        },
      ],
    })),
    method(ReadResourceRequestSchema, async (request) => {
      const { uri } = request.params;
      if (!uri.startsWith(LIST_URI)) throw new McpError(ErrorCode.InvalidParams, `Unknown resource ${uri}; resources/list shows the lists.`, { uri });
      const listId = decodeURIComponent(uri.slice(LIST_URI.length));
      try {
        const output = await invoke(ctx, 'list_items', { params: { listId }, body: undefined });
        return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(output) }] };
      } catch (err) {
        if (err instanceof ApiError) throw new McpError(ErrorCode.InvalidParams, err.message, { uri });
        throw err;
      }
    }),
    method(ListPromptsRequestSchema, async () => ({
      prompts: PROMPTS.map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: [...args] })),
    })),
    method(GetPromptRequestSchema, async (request) => {
      const prompt = PROMPTS.find((p) => p.name === request.params.name);
      if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt '${request.params.name}'; prompts/list shows them.`);
      const args = request.params.arguments ?? {};
      for (const a of prompt.arguments)
        if (a.required && !args[a.name]) throw new McpError(ErrorCode.InvalidParams, `Prompt ${prompt.name} needs '${a.name}'.`);
      return { description: prompt.description, messages: [{ role: 'user', content: { type: 'text', text: prompt.text(args) } }] };
    }),
    method(CompleteRequestSchema, async (request) => {
      const { ref, argument } = request.params;
      const typed = argument.value.toLowerCase();
      const all = await lists(ctx);
      let values: string[] = [];
      if ((ref.type === 'ref/resource' && argument.name === 'listId') || (ref.type === 'ref/prompt' && argument.name === 'list')) {
        values = all.map((l) => l.name);
      } else if (argument.name === 'property') {
        const listArg = request.params.context?.arguments?.list ?? request.params.context?.arguments?.listId;
        const scope = listArg ? all.filter((l) => l.id === listArg || l.name.toLowerCase() === listArg.toLowerCase()) : all;
        values = [...new Set(scope.flatMap((l) => l.properties.map((p) => p.name)))];
      }
      const matching = values.filter((v) => v.toLowerCase().startsWith(typed));
      return { completion: { values: matching.slice(0, 100), total: matching.length, hasMore: matching.length > 100 } };
    }),
  ];
}
