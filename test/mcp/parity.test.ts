/**
 * Spec rule 6 — the MCP tools and the REST operations have the same behaviour and parameters —
 * checked for every operation of the operation table, so an operation that lands is covered
 * with no new test. Each operation runs once through REST and once through MCP, on two fresh
 * accounts set up alike, with the same sample input (test/support/samples.ts). Successes must
 * match once ids and timestamps are normalised, and each must validate against its schema:
 * the REST body against the operation's full output schema, the MCP structuredContent against
 * the tool's compact outputSchema (the SDK client checks it too); refusals must carry the
 * same code and sentence. The MCP side runs once per protocol revision the service speaks: the
 * SDK's client (2025-11-25), raw JSON-RPC at each older initialize-based revision, and raw
 * JSON-RPC as a 2026-07-28 client sends it (no initialize, the envelope in `_meta`).
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { operationTable } from '../../src/generated/operations.js';
import type { OperationSpec } from '../../src/core/operation-spec.js';
import { useTestServer, type TestServer, type TestAccount } from '../support/server.js';
import { sampleInput, type Sample } from '../support/samples.js';
import { initializeMessage, mcpPost, modernMessage, modernPost } from '../support/http.js';
import { startTestJobs } from '../support/jobs.js';
import type { Jobs } from '../../src/jobs/queue.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

type Outcome = { ok: true; body: unknown } | { ok: false; code: string; message: string };

/** Path and query parameters into the URL, everything else into the JSON body. */
async function callRest(
  server: TestServer,
  account: TestAccount,
  op: OperationSpec,
  input: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  let path = op.path;
  const query = new URLSearchParams();
  const body: Record<string, unknown> = {};
  const params = new Map(op.params.map((p) => [p.name, p.in]));
  for (const [key, value] of Object.entries(input)) {
    const where = params.get(key);
    if (where === 'path') path = path.replace(`{${key}}`, encodeURIComponent(String(value)));
    else if (where === 'query') query.set(key, Array.isArray(value) ? value.join(',') : String(value));
    else body[key] = value;
  }
  const hasBody = op.bodySchema !== null && (Object.keys(body).length > 0 || op.bodyRequired);
  const res = await fetch(`${server.baseUrl}/api/v1${path}${query.size ? `?${query}` : ''}`, {
    method: op.method,
    headers: { Authorization: `Bearer ${account.key}`, ...(hasBody ? { 'Content-Type': 'application/json' } : {}) },
    ...(hasBody ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const SHORT_ID = /^[po]_[a-z2-9]{8}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Replaces what differs between two accounts set up alike: ids become <id1>, <id2>, ... in
 * order of first appearance (so a repeated id keeps its token), instants become <instant>,
 * the account's email <email>, the local clock <hh:mm>. Everything else stays as it is.
 */
function normalise(value: unknown, account: TestAccount, ids = new Map<string, string>()): unknown {
  const token = (id: string) => {
    if (!ids.has(id.toLowerCase())) ids.set(id.toLowerCase(), `<id${ids.size + 1}>`);
    return ids.get(id.toLowerCase())!;
  };
  const text = (s: string): string => {
    if (s === account.email) return '<email>';
    if (SHORT_ID.test(s)) return token(s);
    if (INSTANT.test(s)) return '<instant>';
    if (/^\d{2}:\d{2}$/.test(s)) return '<hh:mm>';
    return s.replace(UUID, (id) => token(id));
  };
  if (typeof value === 'string') return text(value);
  if (Array.isArray(value)) return value.map((v) => normalise(v, account, ids));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [text(k), normalise(v, account, ids)]));
  return value;
}

/**
 * Values that differ between two calls by design, per operation, replaced before comparing
 * (keys and counts are still compared). Add a line here when an operation lands whose answer
 * carries such a value that `normalise` does not already cover.
 */
const RANDOM_BY_DESIGN: Record<string, (body: Record<string, unknown>) => unknown> = {
  // Each upload slot is a fresh storage path with a signed URL.
  create_image_upload: (body) => ({
    ...body,
    uploads: (body.uploads as Record<string, unknown>[]).map((slot) => Object.fromEntries(Object.keys(slot).map((k) => [k, `<${k}>`]))),
  }),
};

const tooled = operationTable.filter((op) => op.tool);

/** One tool call as a client of one protocol revision makes it. */
type McpCall = (server: TestServer, account: TestAccount, name: string, args: Record<string, unknown>) => Promise<CallToolResult>;

/** The SDK's client: initialize (2025-11-25), tools/list (it checks structuredContent against the listed outputSchema), tools/call. */
const sdkCall: McpCall = async (server, account, name, args) => {
  const client = await server.mcp(account);
  await client.listTools();
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
};

/** Raw JSON-RPC at an initialize-based revision: initialize, then the call with that MCP-Protocol-Version. */
const legacyCall =
  (version: string): McpCall =>
  async (server, account, name, args) => {
    const auth = { Authorization: `Bearer ${account.key}` };
    const init = await mcpPost(server.baseUrl, initializeMessage(version), auth);
    expect(init.json<{ result: { protocolVersion: string } }>().result.protocolVersion).toBe(version);
    const res = await mcpPost(
      server.baseUrl,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } },
      { ...auth, 'MCP-Protocol-Version': version },
    );
    return res.json<{ result: CallToolResult }>().result;
  };

/** Raw JSON-RPC as a 2026-07-28 client: no initialize; the result says it is complete. */
const modernCall: McpCall = async (server, account, name, args) => {
  const res = await modernPost(server.baseUrl, modernMessage(2, 'tools/call', { name, arguments: args }), { Authorization: `Bearer ${account.key}` });
  const { resultType, _meta, ...result } = res.json<{ result: CallToolResult & { resultType: string } }>().result;
  expect({ resultType, server: (_meta as Record<string, unknown>)['io.modelcontextprotocol/serverInfo'] }).toEqual({
    resultType: 'complete',
    server: expect.anything(),
  });
  return result as CallToolResult;
};

const REVISIONS: [string, McpCall][] = [
  ['2025-11-25, the SDK client', sdkCall],
  ...['2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'].map((v): [string, McpCall] => [v, legacyCall(v)]),
  ['2026-07-28', modernCall],
];

describe.each(REVISIONS)('REST and MCP (%s) give the same answer for every operation', (_revision, mcpCall) => {
  // The job queue: create_import and run_automation queue their work on it.
  const { server } = useTestServer({ accounts: [], beforeClose: async () => jobs?.stop() });
  let jobs: Jobs;
  let served: Map<string, Tool>;
  beforeAll(async () => {
    jobs = await startTestJobs(server);
    const probe = await server.mcp(await server.account('Probe'));
    served = new Map((await probe.listTools()).tools.map((t) => [t.name, t]));
  });

  it('covers every MCP tool; the operations without one are the REST-only event subscriptions, calendar feed, label catalogue, export and import', () => {
    expect(tooled.map((op) => op.operationId).sort()).toEqual([...served.keys()].sort());
    expect(operationTable.filter((op) => !op.tool).map((op) => op.path)).toEqual([
      '/event-subscriptions',
      '/event-subscriptions',
      '/event-subscriptions',
      '/calendar-feed',
      '/calendar-feed',
      '/calendar-feed',
      '/labels',
      '/export',
      '/lists/{id}/csv',
      '/imports/preview',
      '/imports/{id}',
    ]);
  });

  it.each(tooled.map((op) => [op.operationId, op] as const))('%s', async (operationId, op) => {
    // Two accounts set up alike: REST on one, MCP on the other, so writes cannot interfere.
    const restAccount = await server.account('Ada');
    const mcpAccount = await server.account('Ada');
    const restSample = await sampleInput(op, server.context(restAccount));
    const mcpSample: Sample = await sampleInput(op, server.context(mcpAccount));
    const tool = served.get(operationId)!;
    const validInput = ajv.compile(tool.inputSchema);
    expect({ input: mcpSample.input, errors: validInput(mcpSample.input) ? null : validInput.errors }).toEqual({ input: mcpSample.input, errors: null });

    const rest = await callRest(server, restAccount, op, restSample.input);
    const restOutcome: Outcome =
      rest.status < 300 ? { ok: true, body: rest.body } : { ok: false, code: String(rest.body.code), message: String(rest.body.error) };
    const result = await mcpCall(server, mcpAccount, operationId, mcpSample.input);
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';

    if (restSample.placeholders.length === 0 && mcpSample.placeholders.length === 0) {
      expect({ status: rest.status, body: rest.body }).toEqual({ status: op.successStatus, body: expect.anything() });
    }

    if (restOutcome.ok) {
      expect({ isError: result.isError ?? false, text }).toEqual({ isError: false, text: expect.any(String) });
      expect(JSON.parse(text)).toEqual(result.structuredContent);
      const full = ajv.compile(op.outputSchema);
      expect(full(rest.body) ? null : full.errors).toBeNull();
      const compact = ajv.compile(tool.outputSchema!);
      expect(compact(result.structuredContent) ? null : compact.errors).toBeNull();
      const unrandom = RANDOM_BY_DESIGN[operationId] ?? ((body: Record<string, unknown>) => body);
      expect(normalise(unrandom(result.structuredContent as Record<string, unknown>), mcpAccount)).toEqual(normalise(unrandom(rest.body), restAccount));
    } else {
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      const normalisedText = String(normalise(text, mcpAccount));
      expect(normalisedText.startsWith(String(normalise(restOutcome.message, restAccount)))).toBe(true);
      expect(text).toContain(`(code: ${restOutcome.code})`);
    }
  });
});
