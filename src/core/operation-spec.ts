/** How much a grant allows, each level including the ones before: read only; read and write, no deletes; everything. */
export type GrantLevel = 'read' | 'write' | 'delete';

/** The shape of one row of the generated operation table (src/generated/operations.ts). */
export interface OperationSpec {
  operationId: string;
  /** `public`: served as REST (and as an MCP tool with x-mcp); `person`: the person's own pages and command line only (x-person-paths). */
  surface: 'public' | 'person';
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** What a connection's grant must allow (x-grant); null for the person's own operations, which no connection reaches. */
  grant: GrantLevel | null;
  /** The MCP toolset the operation belongs to (x-toolset, `/mcp?toolsets=`); null for the person's own. */
  toolset: string | null;
  path: string;
  summary: string;
  description: string;
  /** Present when the operation is also an MCP tool. */
  tool: {
    title: string;
    /** The tool's text for models (x-mcp.description), when it differs from the operation's description. */
    description: string | null;
    annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
    /** For a batch tool: the input array of entries and the output array of those that failed (x-mcp.batch). */
    batch: { entries: string; failed: string } | null;
  } | null;
  successStatus: number;
  /** `application/json`, or the media type of a text answer (`text/csv`): the handler then returns the text. */
  successContentType: string;
  errorStatuses: number[];
  params: { name: string; in: string; required: boolean }[];
  paramsSchema: JsonSchema;
  bodySchema: JsonSchema | null;
  bodyRequired: boolean;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
}

// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema is any JSON; readers narrow what they use
export type JsonSchema = { [key: string]: any };

/** One MCP tool as tools/list shows it (generated into src/generated/tools.ts). */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object'; properties?: Record<string, JsonSchema> };
  outputSchema: JsonSchema & { type: 'object' };
  /** A read-only tool carries no destructiveHint or idempotentHint: the MCP schema gives them meaning only beside readOnlyHint false. */
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: boolean };
}
