/**
 * The MCP tool surface under review: one committed JSON per tool in __toolsnaps__ (the
 * tools/list entry as served), and a size budget for the whole tools/list answer.
 * After a deliberate change, `UPDATE_TOOLSNAPS=1 make test-mcp` rewrites the snapshots;
 * review their diff like code.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { useTestServer } from '../support/server.js';
import { initializeMessage, mcpPost } from '../support/http.js';
import { tools as generatedTools } from '../../src/generated/tools.js';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';

const SNAP_DIR = path.resolve('test/mcp/__toolsnaps__');
const UPDATE = process.env.UPDATE_TOOLSNAPS === '1';

/**
 * Budget for the whole tools/list result, counted with a real tokenizer (js-tiktoken,
 * o200k_base). MCP clients put every tool definition into the context of every conversation,
 * beside every other connected server's tools: each token here is paid on every turn. Going
 * above it means trimming a description or a schema, or raising this number as a reviewed
 * decision; the measurements and the goal are in bench/README.md ("MCP tools/list").
 */
const TOOLS_LIST_BUDGET_TOKENS = 8_400;
const encoder = new Tiktoken(o200k);

interface WireTool {
  name: string;
  [key: string]: unknown;
}

function snapshotText(tool: WireTool): string {
  return `${JSON.stringify(tool, null, 2)}\n`;
}

describe('MCP tool snapshots', () => {
  const { server } = useTestServer({ accounts: [] });
  let served: WireTool[];
  let resultJson: string;
  beforeAll(async () => {
    const ada = await server.account('Ada');
    const auth = { Authorization: `Bearer ${ada.key}` };
    await mcpPost(server.baseUrl, initializeMessage('2025-11-25'), auth);
    const res = await mcpPost(server.baseUrl, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...auth, 'MCP-Protocol-Version': '2025-11-25' });
    const body = res.json<{ result: { tools: WireTool[] } }>();
    served = body.result.tools;
    resultJson = JSON.stringify(body.result);
    if (UPDATE) {
      mkdirSync(SNAP_DIR, { recursive: true });
      for (const file of readdirSync(SNAP_DIR)) if (!served.some((t) => `${t.name}.json` === file)) rmSync(path.join(SNAP_DIR, file));
      for (const tool of served) writeFileSync(path.join(SNAP_DIR, `${tool.name}.json`), snapshotText(tool));
    }
  });

  it('serves every generated tool, in order', () => {
    expect(served.map((t) => t.name)).toEqual(generatedTools.map((t) => t.name));
  });

  it.each(generatedTools.map((t) => t.name))('%s matches its reviewed snapshot', (name) => {
    const file = path.join(SNAP_DIR, `${name}.json`);
    if (!existsSync(file))
      throw new Error(`No snapshot for tool ${name}: run UPDATE_TOOLSNAPS=1 make test-mcp and commit ${path.relative(process.cwd(), file)}.`);
    const tool = served.find((t) => t.name === name);
    const expected = readFileSync(file, 'utf8');
    const actual = tool ? snapshotText(tool) : '(not served)';
    if (actual !== expected) {
      // toEqual on the parsed objects prints a readable, field-level diff.
      expect({ tool: name, hint: 'review, then UPDATE_TOOLSNAPS=1 make test-mcp', schema: tool }).toEqual({
        tool: name,
        hint: 'review, then UPDATE_TOOLSNAPS=1 make test-mcp',
        schema: JSON.parse(expected),
      });
      expect(actual).toBe(expected); // same data, different formatting or key order
    }
  });

  it('has no snapshot for a tool that is no longer served', () => {
    const files = readdirSync(SNAP_DIR).filter((f) => f.endsWith('.json'));
    expect(files.filter((f) => !served.some((t) => `${t.name}.json` === f))).toEqual([]);
  });

  it(`keeps the tools/list answer within ${TOOLS_LIST_BUDGET_TOKENS} tokens`, () => {
    const tokens = encoder.encode(resultJson).length;
    const rows = served
      .map((t) => ({ name: t.name, tokens: encoder.encode(JSON.stringify(t)).length }))
      .sort((a, b) => b.tokens - a.tokens)
      .map((r) => `${r.name.padEnd(28)} ${String(r.tokens).padStart(5)}`);
    process.stdout.write(`tools/list: ${tokens} tokens (o200k_base), budget ${TOOLS_LIST_BUDGET_TOKENS}\n${rows.join('\n')}\n`);
    expect({ tokens, withinBudget: tokens <= TOOLS_LIST_BUDGET_TOKENS }).toEqual({ tokens, withinBudget: true });
  });
});
