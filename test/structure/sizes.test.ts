/**
 * Files and functions a reader can hold (CONTRIBUTING.md): `make lint` runs tools/check-sizes.mjs; this holds that the
 * check counts what it says (every line of a function, blank ones included; a `describe` callback not) and that the
 * repository passes it.
 */
import { describe, it, expect } from '@jest/globals';
import { createRequire } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
// @ts-expect-error: a plain script of `make lint`, without declarations.
import { longFunctions, MAX_FUNCTION_LINES, sizeProblems } from '../../tools/check-sizes.mjs';

const root = path.resolve(path.dirname(createRequire(import.meta.url).resolve('../../package.json')));

/** A function of `lines` lines in all: its first line, `lines - 2` body lines (every third one blank), its closing brace. */
function functionOf(name: string, lines: number): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => (i % 3 === 2 ? '' : `  console.log(${i});`));
  return [`export function ${name}() {`, ...body, '}'].join('\n');
}

describe('the size check', () => {
  it('counts a function from its first line to its closing brace, blank lines included', () => {
    const text = `${functionOf('fits', MAX_FUNCTION_LINES)}\n${functionOf('tooLong', MAX_FUNCTION_LINES + 1)}\n`;
    expect(longFunctions(ts, 'src/planted.ts', text)).toEqual([{ name: 'tooLong', line: MAX_FUNCTION_LINES + 1, lines: MAX_FUNCTION_LINES + 1 }]);
  });

  it("counts a test's cases and helpers but not a describe callback", () => {
    const long = functionOf('x', MAX_FUNCTION_LINES + 5).replace('export function x() {', '() => {');
    const text = `describe('a suite', ${long});\nit('a case', ${long});\n`;
    expect(longFunctions(ts, 'test/planted.test.ts', text).map((f: { name: string }) => f.name)).toEqual(['callback of it']);
    expect(longFunctions(ts, 'src/planted.ts', text)).toHaveLength(2);
  });

  it('finds nothing to split in the repository but what its list names', () => {
    expect(sizeProblems(root)).toEqual([]);
  });

  it('names a listed offender that no longer offends', () => {
    expect(sizeProblems(root, new Set(['src/web/lists.ts']))).toContain(
      'src/web/lists.ts is no longer too long: take it off TO_SPLIT in tools/check-sizes.mjs',
    );
  });
});
