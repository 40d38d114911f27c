import { jestCounts, schemathesisCounts } from './summary.js';

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
