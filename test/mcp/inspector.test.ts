/**
 * The MCP Inspector's command line (`@modelcontextprotocol/inspector --cli`, under Node 22)
 * against the running server: it lists the tools, finds no portability error in their
 * schemas (`--strict`), calls one, and reports a refusal as a tool error.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { assertNode22Tools, INSPECTOR_CLI, runNode22 } from '../support/node22.js';
import { tools } from '../../src/generated/tools.js';

describe('MCP Inspector CLI', () => {
  const { server, ada } = useTestServer();
  const inspector = (...args: string[]) =>
    runNode22(INSPECTOR_CLI, [
      '--cli',
      `${server.baseUrl}/mcp`,
      '--transport',
      'http',
      '--header',
      `Authorization: Bearer ${ada.key}`,
      '--format',
      'json',
      ...args,
    ]);

  beforeAll(() => assertNode22Tools());

  it('lists every tool', async () => {
    const run = await inspector('--method', 'tools/list');
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const listed = (JSON.parse(run.stdout) as { result: { tools: { name: string; outputSchema?: object }[] } }).result.tools;
    expect(listed.map((t) => t.name)).toEqual(tools.map((t) => t.name));
    expect(listed.every((t) => t.outputSchema)).toBe(true);
  });

  it('finds no portability problem at all in the tool schemas (--strict: no error, no warning)', async () => {
    const run = await inspector('--method', 'tools/list', '--strict');
    const problems = run.stderr.match(/^(Warning|Error): .*$/gm) ?? [];
    expect({ code: run.code, problems, summary: run.stderr.match(/\d+ errors?, \d+ warnings?[^\n]*/)?.[0] }).toEqual({
      code: 0,
      problems: [],
      summary: undefined,
    });
    expect((JSON.parse(run.stdout) as { result: { tools: unknown[] } }).result.tools).toHaveLength(tools.length);
  });

  it('calls a tool and gets structured content', async () => {
    const run = await inspector(
      '--method',
      'tools/call',
      '--tool-name',
      'create_list',
      '--tool-args-json',
      JSON.stringify({ name: 'From the Inspector', properties: [{ name: 'Author', type: 'text' }] }),
    );
    expect(run.code).toBe(0);
    const result = (JSON.parse(run.stdout) as { result: { isError?: boolean; structuredContent: { name: string; properties: { name: string }[] } } }).result;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.name).toBe('From the Inspector');
    const lists = await ada.sdk.GET('/lists', {});
    expect(lists.data?.lists.map((l) => l.name)).toContain('From the Inspector');
  });

  it('reports a refused call as a tool error with the sentence that fixes it', async () => {
    const run = await inspector('--method', 'tools/call', '--tool-name', 'create_list', '--tool-args-json', '{}');
    expect(run.code).toBe(5); // the Inspector's exit code for a result with isError: true
    const result = (JSON.parse(run.stdout) as { result: { isError: boolean; content: { text: string }[] } }).result;
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/'name' is required.*\(code: invalid\)/);
  });
});
