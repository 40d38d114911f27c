/**
 * The commit-msg hook (.githooks/commit-msg) refuses a subject over 72 characters, counted as
 * characters, and lets the rest through; `make hooks` (part of `make setup`) installs it in a
 * checkout of its own, and leaves CI, a linked worktree and a hooks path already set alone.
 * Every git and make here runs in a scratch repository, with no global or system git config.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname ?? '.', '../..');
const HOOK = path.join(root, '.githooks/commit-msg');

/** A clean environment: no CI, no git config but the repository's own, a fixed author. */
const env = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: os.tmpdir(),
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

function run(command: string, args: string[], cwd: string, extra: Record<string, string> = {}) {
  const result = spawnSync(command, args, { cwd, env: { ...env, ...extra }, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the commit-msg hook', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lk-commit-msg-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function check(message: string) {
    const file = path.join(dir, `message-${Math.random().toString(36).slice(2)}`);
    await writeFile(file, message);
    return run(HOOK, [file], dir);
  }

  it('accepts a subject of 72 characters, counting characters rather than bytes', async () => {
    expect((await check(`${'a'.repeat(72)}\n\nWhy it changed.\n`)).status).toBe(0);
    // 72 characters, 180 bytes in UTF-8.
    expect((await check(`${'é'.repeat(36)}${'→'.repeat(36)}\n`)).status).toBe(0);
  });

  it('refuses a subject of 73 characters and says why', async () => {
    const refused = await check(`${'a'.repeat(73)}\n\nWhy it changed.\n`);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('the subject is 73 characters long; at most 72');
  });

  it('reads the subject past comment lines and blank lines, as git does', async () => {
    expect((await check(`# Please enter the commit message\n\n${'b'.repeat(73)}\n`)).status).toBe(1);
    expect((await check(`# ${'c'.repeat(100)}\nShort subject\n`)).status).toBe(0);
  });

  it('lets the subjects git writes itself through (merges, reverts, autosquash)', async () => {
    for (const subject of [`Merge branch '${'x'.repeat(80)}'`, `Revert "${'y'.repeat(80)}"`, `fixup! ${'z'.repeat(80)}`]) {
      expect((await check(`${subject}\n`)).status).toBe(0);
    }
  });

  it('holds a real git commit: refused over 72 characters, made at 72', async () => {
    const repo = path.join(dir, 'repo');
    expect(run('git', ['init', '-q', repo], dir).status).toBe(0);
    run('git', ['config', 'core.hooksPath', path.dirname(HOOK)], repo);
    const long = run('git', ['commit', '-q', '--allow-empty', '-m', 'x'.repeat(73)], repo);
    expect(long.status).not.toBe(0);
    expect(long.stderr).toContain('at most 72');
    expect(run('git', ['rev-parse', '--verify', '-q', 'HEAD'], repo).status).not.toBe(0);
    expect(run('git', ['commit', '-q', '--allow-empty', '-m', 'x'.repeat(72)], repo).status).toBe(0);
    expect(run('git', ['log', '--format=%s'], repo).stdout.trim()).toBe('x'.repeat(72));
  });
});

describe('make hooks', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lk-make-hooks-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const makeHooks = (cwd: string, extra: Record<string, string> = {}) => run('make', ['-s', '-f', path.join(root, 'Makefile'), 'hooks'], cwd, extra);
  const hooksPath = (cwd: string) => run('git', ['config', 'core.hooksPath'], cwd).stdout.trim();

  it('is part of make setup', () => {
    const dryRun = run('make', ['-n', 'setup'], root);
    expect(dryRun.stdout).toContain('git config core.hooksPath .githooks');
  });

  it('installs the hook in a checkout of its own', () => {
    const repo = path.join(dir, 'clone');
    run('git', ['init', '-q', repo], dir);
    expect(makeHooks(repo).status).toBe(0);
    expect(hooksPath(repo)).toBe('.githooks');
  });

  it('leaves CI, a linked worktree and a hooks path already set alone', () => {
    const ci = path.join(dir, 'ci');
    run('git', ['init', '-q', ci], dir);
    expect(makeHooks(ci, { CI: 'true' }).status).toBe(0);
    expect(hooksPath(ci)).toBe('');

    const main = path.join(dir, 'main');
    run('git', ['init', '-q', main], dir);
    run('git', ['commit', '-q', '--allow-empty', '-m', 'Start'], main);
    run('git', ['worktree', 'add', '-q', path.join(dir, 'linked')], main);
    expect(makeHooks(path.join(dir, 'linked')).status).toBe(0);
    expect(hooksPath(main)).toBe('');

    const own = path.join(dir, 'own');
    run('git', ['init', '-q', own], dir);
    run('git', ['config', 'core.hooksPath', 'my-hooks'], own);
    expect(makeHooks(own).status).toBe(0);
    expect(hooksPath(own)).toBe('my-hooks');
  });
});
