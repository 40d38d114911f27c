/**
 * The last line of `make test`: one count over what this run executed, jest's tests (from its
 * --json report) and Schemathesis' generated cases (from its log), as a plain
 * "tests: N passed, N failed, N skipped" line. CI reads a run's closing line to tell a run that
 * tested something from one that tested nothing; neither jest's nor Schemathesis' own closing
 * lines are in a form it reads.
 *
 * Before it, how long each stage of `make test` took, from the clock the Makefile writes after
 * each stage (a third, optional argument; a missing or unreadable one only leaves the table out).
 *
 * Usage: npx tsx test/support/summary.ts <jest.json> <schemathesis.log> [stages.tsv]
 * Exits 1 when a report is missing or unreadable, or when it counts a failure or no test at all.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

/** Counts of a jest `--json` report (aggregated results). */
export function jestCounts(report: string): Counts {
  const json = JSON.parse(report) as Record<string, unknown>;
  const number = (key: string): number => {
    const value = json[key];
    if (typeof value !== 'number') throw new Error(`the jest report has no number '${key}'`);
    return value;
  };
  return {
    passed: number('numPassedTests'),
    failed: number('numFailedTests'),
    skipped: number('numPendingTests') + number('numTodoTests'),
  };
}

/** Counts of the "Test cases:" block of a Schemathesis 4 summary ("N generated, N passed, N failed, N skipped"). */
export function schemathesisCounts(log: string): Counts {
  const block = /^Test cases:\s*\n\s*(.+)$/m.exec(log);
  if (!block) throw new Error('the Schemathesis log has no "Test cases:" summary (did the run finish?)');
  const count = (word: string): number => Number(new RegExp(`(\\d+) ${word}`).exec(block[1]!)?.[1] ?? 0);
  return { passed: count('passed'), failed: count('failed'), skipped: count('skipped') };
}

/** Each stage's duration in ms from the Makefile's clock: a `start` line, then `<stage>\t<ms>` after each stage. */
export function stageTimes(log: string): { stage: string; ms: number }[] {
  const marks = log
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [stage, at] = line.split('\t');
      if (!stage || !at || !/^\d+$/.test(at)) throw new Error(`the stage log has a line it cannot read: '${line}'`);
      return { stage, at: Number(at) };
    });
  if (marks[0]?.stage !== 'start') throw new Error('the stage log does not begin with its start');
  return marks.slice(1).map((mark, i) => ({ stage: mark.stage, ms: mark.at - marks[i]!.at }));
}

/** 850 ms → "0.9 s", 75 s → "1 min 15 s". */
export function duration(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 60) return `${(Math.round(ms / 100) / 10).toFixed(1)} s`;
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

/** The stages' table, with the total; empty when there is no log to read. */
export function stageTable(log: string): string[] {
  const times = stageTimes(log);
  if (times.length === 0) return [];
  const rows = [...times.map((t) => [t.stage, duration(t.ms)]), ['total', duration(times.reduce((sum, t) => sum + t.ms, 0))]];
  const width = Math.max(...rows.map(([stage]) => stage!.length));
  return rows.map(([stage, time]) => `${stage!.padEnd(width)}  ${time!.padStart(12)}`);
}

function printStages(stageLog: string | undefined): void {
  if (!stageLog) return;
  try {
    for (const line of stageTable(readFileSync(stageLog, 'utf8'))) console.log(`time: ${line}`);
  } catch (error) {
    console.error(`summary: no stage times (${(error as Error).message})`);
  }
}

function main(args: string[]): number {
  const [jestReport, schemathesisLog, stageLog] = args;
  if (!jestReport || !schemathesisLog) {
    console.error('usage: summary.ts <jest.json> <schemathesis.log> [stages.tsv]');
    return 2;
  }
  printStages(stageLog);
  let jest: Counts;
  let contract: Counts;
  try {
    jest = jestCounts(readFileSync(jestReport, 'utf8'));
    contract = schemathesisCounts(readFileSync(schemathesisLog, 'utf8'));
  } catch (error) {
    console.error(`summary: ${(error as Error).message}`);
    return 1;
  }
  const total: Counts = {
    passed: jest.passed + contract.passed,
    failed: jest.failed + contract.failed,
    skipped: jest.skipped + contract.skipped,
  };
  const line = (c: Counts) => `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`;
  console.log(`summary: jest ${line(jest)}; Schemathesis cases ${line(contract)}`);
  console.log(`tests: ${line(total)}`);
  return total.failed === 0 && total.passed > 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main(process.argv.slice(2));
