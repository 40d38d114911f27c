/**
 * Statements each operation of the agents' mix sends to Postgres, by token kind and transport:
 * the server runs with `log_statement = all` on its database, each request is sent alone
 * `--repeat` times, and the log lines between are counted (the background jobs' statements,
 * learnt from an idle spell first, left out, and BEGIN/COMMIT: a write's transaction adds two).
 * Approximate: a request's statement that the jobs also send is not counted, and a job's that
 * falls in a request's stretch is. `--show` lists each operation's statements, which is exact.
 *
 *   npx tsx bench/agents/round-trips.ts [--repeat 10]
 */
import { readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { migrate } from '../../src/store/db.js';
import { freePort, openBenchDatabase } from '../support.js';
import { accountMaker } from './accounts.js';
import { listkeeperAgent, MIX, type AgentAccount } from './mix.js';
import type { Planned } from './load.js';
import { startListkeeper } from './servers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const LOG = path.join(root, '.tmp', 'bench-pg', 'postgres.log');
const at = process.argv.indexOf('--repeat');
const REPEAT = at >= 0 ? Number(process.argv[at + 1]) : 10;
/** `--show`: also print the statements of each operation's last request (API key, REST). */
const SHOW = process.argv.includes('--show');

async function logFrom(offset: number): Promise<{ text: string; end: number }> {
  const text = (await readFile(LOG, 'utf8')).slice(offset);
  return { text, end: (await stat(LOG)).size };
}

interface Logged {
  pid: string;
  text: string;
}
/** The statement lines of a stretch of log: the backend's pid and the statement's text. */
const statements = (text: string): Logged[] =>
  text.split('\n').flatMap((l) => {
    const m = /\[(\d+)\] LOG:\s+(?:statement|execute [^:]*):\s(.*)$/.exec(l);
    return m ? [{ pid: m[1]!, text: m[2]! }] : [];
  });
const TRANSACTION = /^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)/i;

/**
 * A request's statements in a stretch of log: those the background jobs never send. BEGIN and
 * COMMIT are left out: the jobs send them too, on the same connections.
 */
function requestStatements(text: string, background: Set<string>): Logged[] {
  return statements(text).filter((s) => !TRANSACTION.test(s.text) && !background.has(s.text.slice(0, 80)));
}

function send(port: number, p: Planned): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: p.method, path: p.path, headers: p.headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(p.body);
  });
}

async function main(): Promise<void> {
  const database = await openBenchDatabase('round_trips', 5);
  try {
    await migrate(database.knex);
    const dbName = new URL(database.url).pathname.slice(1);
    await database.knex.raw(`alter database ${dbName} set log_statement = 'all'`);
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const server = await startListkeeper({ databaseUrl: database.url, port, baseUrl });
    try {
      const accounts = await accountMaker(database.knex, 30).grow(4, baseUrl);
      await sleep(3000);
      // The background jobs' statements: whatever runs while no request does.
      let { end } = await logFrom(0);
      await sleep(4000);
      const idle = await logFrom(end);
      const background = new Set(statements(idle.text).map((s) => s.text.slice(0, 80)));
      end = idle.end;
      const rows: string[] = ['| operation | API key, REST | API key, MCP | OAuth, REST | OAuth, MCP |', '|---|---|---|---|---|'];
      const pick = (via: AgentAccount['via'], mcp: boolean) => accounts.find((a) => a.via === via && a.mcp === mcp)!;
      const kinds = [pick('apiKey', false), pick('apiKey', true), pick('oauth', false), pick('oauth', true)];
      for (const [op] of MIX) {
        const cells: string[] = [];
        for (const account of kinds) {
          const agent = listkeeperAgent(account);
          let count = 0;
          let name = op as string;
          for (let i = 0; i < REPEAT; i++) {
            let planned = agent.next();
            // Draw until the mix gives this operation (writes come as create or update).
            while (!planned.operation.startsWith(op === 'write' ? (i % 2 ? 'update' : 'create') : op)) planned = agent.next();
            name = op === 'write' ? 'write (create/update)' : op;
            const status = await send(port, planned);
            if (status >= 400) throw new Error(`${planned.operation} answered ${status}`);
            await sleep(250);
            const got = await logFrom(end);
            end = got.end;
            const sent = requestStatements(got.text, background);
            count += sent.length;
            if (SHOW && account === kinds[0] && i === REPEAT - 1)
              process.stdout.write(`\n${planned.operation}:\n${sent.map((s) => `  ${s.text.slice(0, 160)}`).join('\n')}\n`);
          }
          cells.push((count / REPEAT).toFixed(1));
          if (account === kinds.at(-1)) rows.push(`| ${name} | ${cells.join(' | ')} |`);
        }
      }
      process.stdout.write(`\nStatements a request (mean of ${REPEAT}; background jobs and BEGIN/COMMIT left out):\n\n${rows.join('\n')}\n`);
    } finally {
      await server.stop();
    }
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
