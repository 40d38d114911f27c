/**
 * The last line of `make test`: one count over what this run executed, jest's tests (from its
 * --json report) and Schemathesis' generated cases (from its log), as a plain
 * "tests: N passed, N failed, N skipped" line. CI reads a run's closing line to tell a run that
 * tested something from one that tested nothing; neither jest's nor Schemathesis' own closing
 * lines are in a form it reads.
 *
 * Usage: npx tsx test/support/summary.ts <jest.json> <schemathesis.log>
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

function main(args: string[]): number {
  const [jestReport, schemathesisLog] = args;
  if (!jestReport || !schemathesisLog) {
    console.error('usage: summary.ts <jest.json> <schemathesis.log>');
    return 2;
  }
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
