import { duration, jestCounts, schemathesisCounts, stageTable, stageTimes } from './summary.js';

describe('the closing line of make test', () => {
  it('counts a jest --json report, pending and todo as skipped', () => {
    const report = JSON.stringify({ numPassedTests: 1434, numFailedTests: 2, numPendingTests: 3, numTodoTests: 1 });
    expect(jestCounts(report)).toEqual({ passed: 1434, failed: 2, skipped: 4 });
  });

  it('refuses a jest report without counts', () => {
    expect(() => jestCounts('{}')).toThrow("no number 'numPassedTests'");
  });

  it.each([
    ['Test cases:\n  4620 generated, 4620 passed, 38 skipped\n', { passed: 4620, failed: 0, skipped: 38 }],
    ['Test cases:\n  5420 generated, 5370 passed, 50 failed, 49 skipped\n', { passed: 5370, failed: 50, skipped: 49 }],
    ['Test cases:\n  12 generated, 12 passed\n', { passed: 12, failed: 0, skipped: 0 }],
  ])('counts the Schemathesis summary %j', (log, counts) => {
    expect(schemathesisCounts(`=== SUMMARY ===\n\n${log}\nReports:\n`)).toEqual(counts);
  });

  it('refuses a Schemathesis log that never reached its summary', () => {
    expect(() => schemathesisCounts('contract: starting listkeeper\n')).toThrow('no "Test cases:" summary');
  });
});

describe('the stage times of make test', () => {
  const log = 'start\t1000\nlint\t15200\ngen-check\t24000\ntest-unit\t605000\n';

  it('times each stage from the clock written after the one before', () => {
    expect(stageTimes(log)).toEqual([
      { stage: 'lint', ms: 14200 },
      { stage: 'gen-check', ms: 8800 },
      { stage: 'test-unit', ms: 581000 },
    ]);
  });

  it('prints a table with the total', () => {
    expect(stageTable(log)).toEqual(['lint             14.2 s', 'gen-check         8.8 s', 'test-unit    9 min 41 s', 'total        10 min 4 s']);
  });

  it('refuses a log without its start, or with a line it cannot read', () => {
    expect(() => stageTimes('lint\t15200\n')).toThrow('does not begin with its start');
    expect(() => stageTimes('start\t1000\nlint\tsoon\n')).toThrow("cannot read: 'lint\tsoon'");
  });

  it('writes durations as seconds, then minutes', () => {
    expect([duration(850), duration(59_940), duration(75_000)]).toEqual(['0.9 s', '59.9 s', '1 min 15 s']);
  });
});
