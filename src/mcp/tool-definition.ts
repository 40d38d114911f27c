import type { JsonSchema } from '../operations/spec.js';

/** One MCP tool as tools/list shows it (generated into src/generated/tools.ts). */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object'; properties?: Record<string, JsonSchema> };
  outputSchema: JsonSchema & { type: 'object' };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}
