/**
 * The parse pool (src/domain/body/parse-pool.ts): a body parsed in the worker thread is the
 * same parse as one made in this thread, with the same outline and handles; the worker runs
 * at the lowest priority (nice 19, Linux); a worker that fails is reported and the body is parsed here instead.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseBody } from '../../../src/domain/body/blocks.js';
import { handlesOf } from '../../../src/domain/body/handles.js';
import { toOutline } from '../../../src/domain/body/outline.js';
import { createParsePool } from '../../../src/domain/body/parse-pool.js';

function mixedBody(sections: number): string {
  const parts: string[] = [];
  for (let i = 0; i < sections; i++)
    parts.push(
      `## Section ${i}\n\nProse ${i} with *emphasis* and \`code\`.\n\n- [ ] task ${i}\n  - [x] sub ${i}\n1. first\n2. second\n\n` +
        `\`\`\`md\n# not a heading\n\`\`\`\n\n| a | b |\n|---|---|\n| ${i} | x |\n\n> quoted ${i}\n\n`,
    );
  return parts.join('');
}

describe('the parse pool', () => {
  const pool = createParsePool();
  const failures: unknown[] = [];
  const failing = createParsePool({
    filename: fileURLToPath(new URL('../../fixtures/failing-parse-worker.mjs', import.meta.url)),
    onWorkerFailure: (err) => failures.push(err),
  });
  afterAll(async () => {
    await pool.close();
    await failing.close();
  });

  it('parses in the worker to the same blocks and outline as a parse in this thread', async () => {
    const body = mixedBody(300);
    const inProcess = parseBody(body);
    const { parsed, outline } = await pool.parse(body);
    expect(outline).toBe(toOutline(inProcess));
    expect(parsed.text).toBe(body);
    expect(parsed.blockCount).toBe(inProcess.blockCount);
    expect(parsed.starts).toEqual(inProcess.starts);
    expect(parsed.units).toEqual(inProcess.units);
  });

  it('answers the handles with the parse, the same ones this thread would name the blocks with', async () => {
    const body = mixedBody(300);
    const { parsed } = await pool.parse(body);
    // Set from the worker's answer, not made here: handlesOf returns them as they are.
    expect(parsed.handles).toHaveLength(parsed.blockCount);
    expect(handlesOf(parsed)).toBe(parsed.handles);
    expect(parsed.handles).toEqual(handlesOf(parseBody(body)));
    // Over 1,000 blocks, handles have four characters.
    expect(parsed.blockCount).toBeGreaterThan(1000);
    expect(parsed.handles![0]).toHaveLength(4);
  });

  it('answers no handles for a body without blocks', async () => {
    const { parsed } = await pool.parse('\n\n');
    expect(parsed.blockCount).toBe(0);
    expect(handlesOf(parsed)).toEqual([]);
  });

  it('parses several bodies at once, each to its own parse', async () => {
    const bodies = [mixedBody(5), mixedBody(40), '# Only a heading\n'];
    const results = await Promise.all(bodies.map((b) => pool.parse(b)));
    results.forEach(({ outline }, i) => expect(outline).toBe(toOutline(parseBody(bodies[i]!))));
  });

  /** Each thread of this process: its nice value, from /proc. */
  function threads(): { nice: number }[] {
    return readdirSync('/proc/self/task').flatMap((id) => {
      try {
        // The fields after the command's closing parenthesis start at the third, the state.
        const fields = readFileSync(`/proc/self/task/${id}/stat`, 'utf8').split(') ').pop()!.split(' ');
        return [{ nice: Number(fields[19 - 3]) }];
      } catch {
        return []; // a thread that ended meanwhile
      }
    });
  }
  (process.platform === 'linux' ? it : it.skip)('runs the worker at nice 19, the other threads as they were', async () => {
    await pool.parse(mixedBody(5));
    const own = Number(readFileSync('/proc/self/stat', 'utf8').split(') ').pop()!.split(' ')[19 - 3]);
    // The worker's thread (and any thread it started since); every other thread as it was.
    expect(threads().filter((t) => t.nice === 19).length).toBeGreaterThan(0);
    expect(threads().filter((t) => t.nice !== 19 && t.nice !== own)).toEqual([]);
    expect(own).not.toBe(19);
  });

  it('falls back to parsing in this thread when the worker fails, and says so', async () => {
    const body = mixedBody(20);
    const { parsed, outline } = await failing.parse(body);
    expect(outline).toBe(toOutline(parseBody(body)));
    expect(parsed.text).toBe(body);
    expect(String(failures[0])).toContain('this worker always fails');
  });
});
