/**
 * The goals of issue #20 as the benchmarks print them: each measured figure beside its goal
 * and PASS or MISS, so a run says by itself what it met. `make bench` (bench/run.ts) and
 * `make bench-mcp` (bench/mcp/tools-call.ts) both print their part with `printGoals`.
 */

export interface Goal {
  /** What is measured, e.g. "get_item: ceiling ÷ listkeeper at 32 connections". */
  what: string;
  /** The figure as measured, with its unit (e.g. "1.7x", "38 ms"); "not measured" when absent. */
  measured: string;
  /** The goal in words (e.g. "≤ 2x"). */
  goal: string;
  /** Undefined when the figure was not measured in this run. */
  pass: boolean | undefined;
}

/** A goal on a number: met when `value <= max` (or `< max` when `strict`). */
export function atMost(what: string, value: number | undefined, max: number, unit: string, options: { strict?: boolean } = {}): Goal {
  const shown = (n: number) => `${Number.isInteger(n) ? n : n.toFixed(2)}${unit}`;
  return {
    what,
    measured: value === undefined || Number.isNaN(value) ? 'not measured' : shown(value),
    goal: `${options.strict ? '<' : '≤'} ${shown(max)}`,
    pass: value === undefined || Number.isNaN(value) ? undefined : options.strict ? value < max : value <= max,
  };
}

/** Prints the goals as one aligned table under `title`. */
export function printGoals(title: string, goals: Goal[]): void {
  const verdict = (g: Goal) => (g.pass === undefined ? '-' : g.pass ? 'PASS' : 'MISS');
  const rows = goals.map((g) => [g.what, g.measured, g.goal, verdict(g)]);
  const head = ['goal (issue #20)', 'measured', 'target', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  process.stdout.write(`\n${title}\n${line(head)}\n${line(widths.map((w) => '-'.repeat(w)))}\n`);
  for (const row of rows) process.stdout.write(`${line(row)}\n`);
}
