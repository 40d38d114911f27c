// Files and functions a reader can hold (CONTRIBUTING.md): no hand-written file over 450 lines, no function over 100.
// `make lint` runs it. Lines are the file's own lines, blank ones included, as an editor shows them: Biome's
// noExcessiveLinesPerFile and noExcessiveLinesPerFunction leave blank lines out (even with skipBlankLines: false), so
// they pass a 461-line file. A function counts from its first token to its closing brace; a test file's `describe`
// callbacks are a list of cases, not a function anyone reads as one, and are not counted (the cases and helpers are).
// Usage: node tools/check-sizes.mjs [root]; exits 1 and names each offender.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const MAX_FILE_LINES = 450;
export const MAX_FUNCTION_LINES = 100;
const ROOTS = ['src', 'codegen', 'bench', 'tools', 'test', 'bin', 'sdk/src', 'sdk/test'];
const CHECKED = /\.(ts|mts|cts|js|mjs|cjs|css|py|sh)$/;
const SCRIPT = /\.(ts|mts|cts|js|mjs|cjs)$/;
/**
 * Offenders still to split, each named once: `file` for its length, `file#function` for a function. An entry that no
 * longer offends fails too, so the list only shrinks. Empty it; never add to it.
 */
const TO_SPLIT = new Set([
]);
/**
 * A migration is written once and never edited after it ships (a database that ran it would not run the edit), so
 * its `up` is a record of what was done then, read top to bottom, not a function to split.
 */
const MIGRATIONS = /^src\/store\/migrations\//;
/** Written by `make gen` (never by hand), installed, or a migration. */
const NOT_COUNTED = [/^src\/generated\//, /^sdk\/src\/generated\//, /^bench\/out\//, /\.d\.ts$/, /(^|\/)node_modules\//, /^tools\/node22\//, /^tools\/mcp-node22\//, MIGRATIONS];

/** The hand-written files under the roots: tracked, or new and not ignored. */
export function handWritten(root) {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...ROOTS], { cwd: root, encoding: 'utf8' });
  return [...new Set(out.split('\n'))].filter((f) => CHECKED.test(f) && !NOT_COUNTED.some((g) => g.test(f))).sort();
}

function lineCount(text) {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** A `describe(…)` callback (also `describe.each(…)(…)`, `describe.skip(…)`). */
function isDescribeBody(ts, node) {
  const call = node.parent;
  if (!call || !ts.isCallExpression(call) || !call.arguments.includes(node)) return false;
  let callee = call.expression;
  while (ts.isPropertyAccessExpression(callee) || ts.isCallExpression(callee)) callee = ts.isCallExpression(callee) ? callee.expression : callee.expression;
  return ts.isIdentifier(callee) && callee.text === 'describe';
}

/** The functions of one source longer than MAX_FUNCTION_LINES: their name, first line and length. */
export function longFunctions(ts, file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const inTest = file.startsWith('test/') || file.startsWith('sdk/test/');
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body && !(inTest && isDescribeBody(ts, node))) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > MAX_FUNCTION_LINES) found.push({ name: nameOf(ts, node, source), line: start + 1, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function nameOf(ts, node, source) {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) return parent.name.getText(source);
  if (parent && ts.isCallExpression(parent)) return `callback of ${parent.expression.getText(source).slice(0, 40)}`;
  return '(anonymous)';
}

/** Every offender under `root`, as sentences. */
export function sizeProblems(root, allowed = TO_SPLIT) {
  const ts = createRequire(path.join(root, 'package.json'))('typescript');
  const found = new Map();
  for (const file of handWritten(root)) {
    let text;
    try {
      text = readFileSync(path.join(root, file), 'utf8');
    } catch {
      continue; // deleted in the work tree, not yet in the index
    }
    const lines = lineCount(text);
    if (lines > MAX_FILE_LINES) found.set(file, `${file}: ${lines} lines (at most ${MAX_FILE_LINES})`);
    if (SCRIPT.test(file))
      for (const f of longFunctions(ts, file, text)) found.set(`${file}#${f.name}`, `${file}:${f.line}: ${f.name} is ${f.lines} lines (at most ${MAX_FUNCTION_LINES})`);
  }
  const problems = [...found].filter(([key]) => !allowed.has(key)).map(([, sentence]) => sentence);
  for (const key of allowed) if (!found.has(key)) problems.push(`${key} is no longer too long: take it off TO_SPLIT in tools/check-sizes.mjs`);
  return problems;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = sizeProblems(path.resolve(process.argv[2] ?? '.'));
  if (problems.length) {
    console.error(`Files and functions a reader can hold (CONTRIBUTING.md): split these.\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
}
