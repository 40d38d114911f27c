/**
 * One JSON-RPC method of the MCP server, written once for both eras: the SDK's protocol server
 * takes it for the initialize-based revisions (`registerMethods`), and the stateless 2026-07-28
 * path (`modern.ts`) looks it up by name. The schema is the request's (method literal and
 * params), the SDK's own where the method is a core one.
 */
import type * as z from 'zod';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

export type MethodResult = Record<string, unknown>;

export interface McpMethod {
  name: string;
  schema: z.ZodType;
  handle(request: never): Promise<MethodResult>;
}

/** A method from its request schema (which names it) and its handler. */
export function method<S extends z.ZodObject<{ method: z.ZodLiteral<string> }>>(schema: S, handle: (request: z.output<S>) => Promise<MethodResult>): McpMethod {
  return { name: String(schema.shape.method.value), schema, handle: handle as McpMethod['handle'] };
}

/** Registers methods on a (per-request) protocol server of the SDK. */
export function registerMethods(server: Server, methods: McpMethod[]): void {
  for (const m of methods) server.setRequestHandler(m.schema as never, m.handle as never);
}
