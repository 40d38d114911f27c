/**
 * The authorization-server scenarios of @modelcontextprotocol/conformance
 * (`conformance authorization`: authorization-server-metadata-endpoint and
 * authorization-code-grant; they exist from its 0.2 pre-releases on, installed in
 * tools/mcp-node22 by `make mcp-tools`), run by the
 * package's own CLI under Node 22 against a running listkeeper. The CLI prints an authorization
 * URL and waits for its loopback callback; this test plays the person in the browser
 * (sign-in and consent over HTTP) and delivers the redirect to the CLI's callback server.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { useTestServer, type TestAccount } from '../support/server.js';
import { HttpBrowser, authorizeInBrowser, registerClient } from '../support/oauth.js';
import { CONFORMANCE_CLI as CLI, NODE22 } from '../support/node22.js';
import { freePort } from '../support/net.js';

const PASSWORD = 'correct horse battery staple';

interface Check {
  id: string;
  name: string;
  status: string;
  errorMessage?: string;
}

async function checksIn(dir: string): Promise<Check[]> {
  const out: Check[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name === 'checks.json') out.push(...(JSON.parse(await readFile(path.join(entry.parentPath, entry.name), 'utf8')) as Check[]));
  }
  return out;
}

describe('MCP conformance: authorization server scenarios', () => {
  const { server } = useTestServer({ accounts: [] });
  let ada: TestAccount;
  let outputDir: string;
  beforeAll(async () => {
    ada = await server.account('Ada', PASSWORD);
    outputDir = await mkdtemp(path.join(os.tmpdir(), 'listkeeper-conformance-'));
  });
  afterAll(async () => {
    if (outputDir) await rm(outputDir, { recursive: true, force: true });
  });

  it('passes authorization-server-metadata-endpoint and authorization-code-grant', async () => {
    for (const file of [NODE22, CLI]) if (!existsSync(file)) throw new Error(`${file} is missing: run 'make mcp-tools'.`);
    const port = await freePort();
    const client = await registerClient(server.baseUrl, 'MCP conformance', `http://127.0.0.1:${port}/callback`);
    const child = spawn(
      NODE22,
      [CLI, 'authorization', '--url', server.baseUrl, '--client-id', client.clientId, '--resource', server.baseUrl, '--port', String(port), '-o', outputDir],
      {
        env: { PATH: process.env.PATH ?? '', HOME: outputDir, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    // The CLI prints the authorization URL, then waits for the callback.
    const authorizationUrl = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /^(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)$/m.exec(stdout);
        if (match) resolve(match[1]!);
      });
      void exited.then(() => reject(new Error(`conformance CLI exited before asking for authorization:\n${stdout}\n${stderr}`)));
    });
    const { location } = await authorizeInBrowser(new HttpBrowser(server.baseUrl), authorizationUrl, { email: ada.email, password: PASSWORD });
    expect(location).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/callback\\?`));
    await fetch(location!);

    const code = await exited;
    const checks = await checksIn(outputDir);
    const failures = checks.filter((c) => c.status === 'FAILURE');
    expect({ code, failures }).toEqual({ code: 0, failures: [] });
    expect(
      checks
        .filter((c) => c.status === 'SUCCESS')
        .map((c) => c.id)
        .sort(),
    ).toEqual(['authorization-code-grant', 'authorization-server-metadata', 'authorization-server-metadata-cimd']);
    // Every check succeeds: client ID metadata documents included (src/auth/oauth/client-metadata.ts).
    expect(checks.filter((c) => c.status !== 'SUCCESS').map((c) => [c.id, c.status])).toEqual([]);
  }, 120_000);
});
