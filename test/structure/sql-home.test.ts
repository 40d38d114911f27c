/**
 * SQL has one home: the domain (and the store's migrations). Operations and adapters call
 * domain functions; `auth/oauth/`, `search/` and `jobs/` keep their own bookkeeping tables
 * (ARCHITECTURE.md says which).
 * A query is recognised by the query builder's table call (`db('items')`, `trx('lists as l')`)
 * or a raw statement (`.raw(`).
 */
import { describe, it, expect } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const QUERY = /\b(?:db|trx|knex|this\.db)\(\s*['"`]|\.raw\(/;
const NO_SQL = ['src/operations', 'src/http', 'src/mcp', 'src/web', 'src/cli'];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return files(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

describe('where SQL lives', () => {
  it('finds queries where they are (the check can fail)', () => {
    expect(QUERY.test(readFileSync('src/domain/trash/trash.ts', 'utf8'))).toBe(true);
  });

  it('has no query in operations or adapters', () => {
    const offenders = NO_SQL.flatMap(files).flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${f}:${i + 1}` }))
        .filter(({ line }) => QUERY.test(line) && !line.trim().startsWith('*') && !line.trim().startsWith('//'))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });
});
