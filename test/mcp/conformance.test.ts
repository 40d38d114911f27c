/**
 * The server scenarios of the MCP conformance suite (@modelcontextprotocol/conformance, its
 * newest release, run under Node 22) against a running listkeeper: the initialize-based
 * revisions, 2026-07-28 and the official extensions, with test/mcp/conformance-baseline.yml as
 * the list of scenarios and checks that do not apply, each with its reason.
 *
 * The suite has no way to send a token, and listkeeper has no unauthenticated mode, so it
 * talks to a pass-through proxy that adds a real API key and forwards Host and Origin as sent:
 * the DNS rebinding scenario still reaches the server's own Host/Origin checks.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { useTestServer } from '../support/server.js';
import { startBearerProxy, type BearerProxy } from '../support/bearer-proxy.js';
import { assertNode22Tools, CONFORMANCE_CLI, runNode22, type RunResult } from '../support/node22.js';

/** The scenarios that apply to listkeeper: each must pass outright. */
const MUST_PASS = [
  'server-initialize',
  'ping',
  'tools-list',
  'dns-rebinding-protection',
  'resources-list',
  'prompts-list',
  'completion-complete',
  'caching',
  'http-header-validation',
  'sep-2164-resource-not-found',
  'input-required-result-unsupported-methods',
  'input-required-result-ignore-extra-params',
  'input-required-result-validate-input',
];

/** Within scenarios the baseline lists by check: the checks that apply and must pass. */
const MUST_PASS_CHECKS: [string, string[] | 'all others'][] = [
  ['server-stateless', 'all others'],
  ['tasks-capability-negotiation', ['tasks-extension-advertised', 'sep-2663-tasks-methods-non-declaring']],
  ['tasks-dispatch-and-envelope', ['sep-2663-tasks-get-invalid-task-id-32602']],
];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
  details?: Record<string, unknown>;
}

describe('MCP conformance suite (server scenarios)', () => {
  const { server, ada } = useTestServer({ beforeClose: async () => proxy?.close() });
  let proxy: BearerProxy;
  let outDir: string;
  let run: RunResult;
  const checks = new Map<string, Check[]>();

  beforeAll(async () => {
    assertNode22Tools();
    proxy = await startBearerProxy(server.baseUrl, ada.key);
    outDir = mkdtempSync(path.join(tmpdir(), 'lk-conformance-'));
    run = await runNode22(
      CONFORMANCE_CLI,
      ['server', '--url', `${proxy.url}/mcp`, '--suite', 'all', '--expected-failures', path.resolve('test/mcp/conformance-baseline.yml'), '-o', outDir],
      { timeoutMs: 240_000 },
    );
    for (const dir of readdirSync(outDir)) {
      const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
      checks.set(scenario, JSON.parse(readFileSync(path.join(outDir, dir, 'checks.json'), 'utf8')) as Check[]);
    }
  }, 270_000);
  afterAll(async () => {
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  it('passes against the baseline: no unexpected failure, no stale expected failure', () => {
    const summary = run.stdout.slice(run.stdout.indexOf('=== SUMMARY ==='));
    expect({ code: run.code, summary }).toEqual({ code: 0, summary: expect.stringContaining('Baseline check passed') });
  });

  it('ran every scenario it lists, at least 60', () => {
    expect(checks.size).toBeGreaterThanOrEqual(60);
  });

  it.each(MUST_PASS)('%s applies and passes outright', (scenario) => {
    const results = checks.get(scenario) ?? [];
    expect(results.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')).toEqual([]);
    expect(results.some((c) => c.status === 'SUCCESS')).toBe(true);
  });

  it.each(MUST_PASS_CHECKS)('%s passes the checks that apply', (scenario, names) => {
    const expected = readFileSync(path.resolve('test/mcp/conformance-baseline.yml'), 'utf8').match(new RegExp(`^  - ${scenario}:(\\S+)`, 'gm')) ?? [];
    const baselined = new Set(expected.map((line) => line.split(':')[1]!));
    const results = checks.get(scenario) ?? [];
    const applying = names === 'all others' ? results.filter((c) => !baselined.has(c.id)) : results.filter((c) => names.includes(c.id));
    expect(applying.length).toBeGreaterThanOrEqual(names === 'all others' ? 10 : names.length);
    expect(
      applying.filter((c) => c.status !== 'SUCCESS' && c.status !== 'SKIPPED' && c.status !== 'INFO').map((c) => [c.id, c.status, c.errorMessage]),
    ).toEqual([]);
  });

  it('refuses the rebinding attempt through the Host check, not for want of a token', () => {
    const rejected = checks.get('dns-rebinding-protection')?.find((c) => c.id === 'localhost-host-rebinding-rejected');
    expect(rejected?.details).toMatchObject({ statusCode: 403, body: { error: expect.stringMatching(/^Host 'evil\.example\.com' .*DNS rebinding/) } });
  });
});
