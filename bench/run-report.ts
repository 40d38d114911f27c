/**
 * The result of `make bench` (bench/run.ts): the table, growth and plans read from the measured rows, the goals of
 * issue #20 beside their figures, and the printed table.
 */
import type { Knex } from 'knex';
import { atMost, type Goal } from './goals.js';
import type { Case, Load, Row, Workspace } from './run-cases.js';

/**
 * The table (listkeeper beside its ceiling, row by row), the growth 10k → 100k at 8 connections, the plans of the
 * ceiling's statements that grow slower (and always of query_items), and the findings they add to `findings`.
 */
export async function analyse(db: Knex, rows: Row[], selected: Case[], [wsSmall, wsBig]: [Workspace, Workspace], findings: string[]) {
  const plans: Record<string, string> = {};
  const byKey = (op: string, data: string, conn: number, target: string) =>
    rows.find((r) => r.operation === op && r.data === data && r.connections === conn && r.target === target);
  const table = rows
    .filter((r) => r.target === 'listkeeper')
    .map((r) => {
      const ceil = byKey(r.operation, r.data, r.connections, 'ceiling')!;
      return {
        operation: r.operation,
        data: r.data,
        connections: r.connections,
        rps: r.rps,
        p50: r.p50,
        p99: r.p99,
        ceilingRps: ceil.rps,
        ceilingP50: ceil.p50,
        ratio: ceil.rps ? Number((ceil.rps / Math.max(1, r.rps)).toFixed(2)) : null,
        errors: r.errors + ceil.errors,
        completed: r.completed,
        timeouts: r.timeouts,
        failed: r.errors,
      };
    });
  const growth: Record<string, number> = {};
  for (const c of selected) {
    const s = byKey(c.operation, '10k', 8, 'listkeeper');
    const g = byKey(c.operation, '100k', 8, 'listkeeper');
    if (s && g) growth[c.operation] = Number((s.rps / Math.max(1, g.rps)).toFixed(2));
    const slows = s && g && !c.operation.startsWith('create') && !c.operation.startsWith('update') && s.rps / Math.max(1, g.rps) > 1.5;
    if (slows) findings.push(`${c.operation} slows ${(s.rps / Math.max(1, g.rps)).toFixed(2)}x from 10k to 100k items`);
    // query_items' plans always: their growth is a goal, and the plan shows whether the index on values serves it.
    // Both sizes: the growth is a ratio, and a plan that changes on the small side moves it as much as the big one.
    if (slows || c.operation.startsWith('query_items')) {
      for (const ws of c.plan ? [wsSmall, wsBig] : []) {
        const { sql, params } = c.plan!(ws);
        // $n placeholders to knex's ?, each with its parameter (a statement may use one twice).
        const bindings: unknown[] = [];
        const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
          bindings.push(params[Number(n) - 1]);
          return '?';
        });
        plans[`${c.operation}, ${ws.label}`] = await db
          .raw(`EXPLAIN ANALYZE ${text}`, bindings as Knex.RawBinding[])
          .then((explained) => (explained.rows as Record<string, string>[]).map((r) => r['QUERY PLAN']!).join('\n'))
          .catch((err: unknown) => `not explained: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
  for (const row of table) {
    if (row.errors > 0)
      findings.push(
        `${row.operation} ${row.data} x${row.connections}: ${row.errors} failed requests (non-2xx or timeouts; listkeeper's ${row.failed}, the ceiling's ${row.errors - row.failed}); that row's figures are not valid`,
      );
  }
  for (const row of table) {
    const read = !row.operation.startsWith('create') && !row.operation.startsWith('update');
    if (read && row.connections === 32 && row.data === '100k' && (row.ratio ?? 0) > 2)
      findings.push(`${row.operation}: ${row.ratio}x below its ceiling at 32 connections (goal 2x)`);
  }
  return { table, growth, plans };
}

type Result = {
  table: { operation: string; data: string; connections: number; ratio: number | null; completed: number; timeouts: number; failed: number }[];
  growth: Record<string, number>;
  firstParse: { p99DuringParse: number } | undefined;
  updateBurst: Load | undefined;
  memory: { idleWithModelRssMb: number | undefined; peakRssMb: number };
  startToReadyMs: number[];
};

/** The goals of issue #20 that this benchmark measures, from its result. */
export function goalsOf(result: Result): Goal[] {
  const at32 = (op: string) => result.table.find((r) => r.operation === op && r.data === '100k' && r.connections === 32);
  const updates = result.updateBurst;
  return [
    atMost('get_item: ceiling ÷ listkeeper at 32 connections', at32('get_item')?.ratio ?? undefined, 2, 'x'),
    atMost('list_items (50): ceiling ÷ listkeeper at 32', at32('list_items (50)')?.ratio ?? undefined, 1.5, 'x'),
    atMost('changes feed (200): ceiling ÷ listkeeper at 32', at32('changes feed (200)')?.ratio ?? undefined, 1.5, 'x'),
    atMost('get_item p99 while a 1 MB body is first parsed', result.firstParse?.p99DuringParse, 50, ' ms', { strict: true }),
    atMost('query_items count (where State = Read): 10k ÷ 100k req/s', result.growth['query_items (count)'], 1.5, 'x'),
    atMost('query_items sum (where State = Read): 10k ÷ 100k req/s', result.growth['query_items (sum)'], 1.5, 'x'),
    {
      what: 'update_items (200), 32 connections for 20 s: timeouts, failures',
      measured: updates ? `${updates.completed} completed, ${updates.timeouts} timeouts, ${updates.errors - updates.timeouts} failed` : 'not measured',
      goal: 'every request completes',
      pass: updates ? updates.errors === 0 : undefined,
    },
    atMost('memory, idle with the local model loaded (RSS)', result.memory.idleWithModelRssMb, 300, ' MB', { strict: true }),
    atMost('start to /readyz (slowest of 3)', result.startToReadyMs.length ? Math.max(...result.startToReadyMs) : undefined, 5000, ' ms', { strict: true }),
  ];
}

export function printTable(result: {
  table: Record<string, unknown>[];
  memory: object;
  startToReadyMs: number[];
  twoProcesses: object | undefined;
  findings: string[];
  plans: Record<string, string>;
  machine: object;
}): void {
  const cols = ['operation', 'data', 'connections', 'rps', 'p50', 'p99', 'ceilingRps', 'ceilingP50', 'ratio', 'errors', 'timeouts'];
  const widths = cols.map((c) => Math.max(c.length, ...result.table.map((r) => String(r[c]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i]!)).join('  ');
  process.stdout.write(`${line(cols)}\n${line(widths.map((w) => '-'.repeat(w)))}\n`);
  for (const r of result.table) process.stdout.write(`${line(cols.map((c) => String(r[c])))}\n`);
  process.stdout.write(
    `\nmachine: ${JSON.stringify(result.machine)}\nmemory (MB): ${JSON.stringify(result.memory)}\nstart to /readyz on an existing data folder (ms): ${result.startToReadyMs.join(', ')}\ntwo processes: ${JSON.stringify(result.twoProcesses)}\n`,
  );
  process.stdout.write(`findings:\n${result.findings.map((f) => `  - ${f}`).join('\n') || '  none'}\n`);
  for (const [operationAndData, plan] of Object.entries(result.plans))
    process.stdout.write(`\nquery plan of ${operationAndData} (the ceiling's statement):\n${plan}\n`);
}
