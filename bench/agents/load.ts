/**
 * The open-loop load of `bench/agents.ts`: every simulated agent sends its requests at times
 * drawn in advance (exponential think time around a steady rate), whether or not its last
 * answer came, so a slow server is charged for the queue it builds (no coordinated omission:
 * latency counts from the planned start). Bounded by a request count and by seconds; loopback
 * only.
 */
import http from 'node:http';
import { readFile } from 'node:fs/promises';

/** One request as the wire sees it. */
export interface Planned {
  operation: string;
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Reads the answer (feed cursors); true when the answer is one the operation expects. */
  onAnswer?(status: number, body: string): boolean;
}

/** A simulated agent: what it sends next, and where (one of the target's ports). */
export interface LoadAgent {
  next(): Planned;
}

export interface OperationStats {
  requests: number;
  errors: number;
  rateLimited: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface LoadResult {
  seconds: number;
  requests: number;
  throughput: number;
  errors: number;
  rateLimited: number;
  p50: number;
  p95: number;
  p99: number;
  perOperation: Record<string, OperationStats>;
  /** The server processes' CPU time (user + system) over the run, and per answered request. */
  cpuMs: number;
  cpuMsPerRequest: number;
  /** The server processes' resident memory at the end, summed over processes (MB). */
  rssMb: number;
  /** /proc/loadavg's first three fields at the start and the end. */
  load: [string, string];
  /** First few error descriptions, for the report. */
  samples: string[];
}

/** utime + stime of a process, in ms (fields 14 and 15 of /proc/<pid>/stat, clock ticks of 10 ms). */
export async function cpuMsOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export async function rssMbOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

export async function loadavg(): Promise<string> {
  return (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function stats(latencies: number[], errors: number, rateLimited: number): OperationStats {
  const sorted = latencies.slice().sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    requests: latencies.length,
    errors,
    rateLimited,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? 0),
  };
}

/** Sends one request; resolves with the status and body, or an error text. */
function send(agent: http.Agent, port: number, planned: Planned): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: planned.method, path: planned.path, headers: planned.headers, agent, timeout: 10_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (err) => resolve({ error: err.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout after 10 s')));
    req.on('error', (err) => resolve({ error: err.message }));
    if (planned.body !== undefined) req.end(planned.body);
    else req.end();
  });
}

/** Exponential think time with mean 1/rate seconds, in ms. */
const thinkMs = (ratePerSecond: number) => (-Math.log(1 - Math.random()) / ratePerSecond) * 1000;

/**
 * Runs `agents` at `ratePerAgent` requests a second each for `seconds` (or until `maxRequests`
 * were sent), spreading requests over `ports` round robin (as a proxy would), then waits for
 * the answers in flight. `pids` are the server processes measured.
 */
export async function runLoad(opts: {
  agents: LoadAgent[];
  ratePerAgent: number;
  seconds: number;
  maxRequests: number;
  ports: number[];
  pids: number[];
}): Promise<LoadResult> {
  // Idle sockets close after 4 s, before the servers' 5 s keep-alive timeout: else a request
  // now and then goes out on a socket the server is closing, and fails with ECONNRESET.
  const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 512, timeout: 4000 });
  const latencies = new Map<string, number[]>();
  const errors = new Map<string, number>();
  const limited = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const samples: string[] = [];
  const loadStart = await loadavg();
  const cpuBefore = await Promise.all(opts.pids.map(cpuMsOf));
  const started = performance.now();
  const endAt = started + opts.seconds * 1000;
  let sent = 0;
  let portTurn = 0;
  const inFlight = new Set<Promise<void>>();

  const fire = (planned: Planned, plannedAt: number) => {
    const port = opts.ports[portTurn++ % opts.ports.length]!;
    const done = send(httpAgent, port, planned).then((answer) => {
      const ms = performance.now() - plannedAt;
      const list = latencies.get(planned.operation) ?? [];
      list.push(ms);
      latencies.set(planned.operation, list);
      if ('error' in answer) {
        bump(errors, planned.operation);
        if (samples.length < 5) samples.push(`${planned.operation}: ${answer.error}`);
      } else if (answer.status === 429) {
        bump(limited, planned.operation);
      } else if (answer.status >= 400 || (planned.onAnswer && !planned.onAnswer(answer.status, answer.body))) {
        bump(errors, planned.operation);
        if (samples.length < 5) samples.push(`${planned.operation}: ${answer.status} ${answer.body.slice(0, 200)}`);
      }
    });
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
  };

  // Each agent's next planned time; a timer per agent keeps the schedule without a busy loop.
  await new Promise<void>((resolve) => {
    let running = opts.agents.length;
    const finishOne = () => {
      if (--running === 0) resolve();
    };
    for (const agent of opts.agents) {
      let at = started + Math.random() * thinkMs(opts.ratePerAgent);
      const step = () => {
        if (at >= endAt || sent >= opts.maxRequests) return finishOne();
        sent++;
        fire(agent.next(), at);
        at += thinkMs(opts.ratePerAgent);
        setTimeout(step, Math.max(0, at - performance.now()));
      };
      setTimeout(step, Math.max(0, at - performance.now()));
    }
  });
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(inFlight);
  const cpuAfter = await Promise.all(opts.pids.map(cpuMsOf));
  const rss = await Promise.all(opts.pids.map(rssMbOf));
  httpAgent.destroy();

  const all: number[] = [];
  const perOperation: Record<string, OperationStats> = {};
  for (const [op, list] of [...latencies].sort(([a], [b]) => a.localeCompare(b))) {
    all.push(...list);
    perOperation[op] = stats(list, errors.get(op) ?? 0, limited.get(op) ?? 0);
  }
  const total = stats(
    all,
    [...errors.values()].reduce((a, b) => a + b, 0),
    [...limited.values()].reduce((a, b) => a + b, 0),
  );
  const cpuMs = cpuAfter.reduce((a, b) => a + b, 0) - cpuBefore.reduce((a, b) => a + b, 0);
  return {
    seconds: Math.round(elapsed * 10) / 10,
    requests: total.requests,
    throughput: Math.round(total.requests / elapsed),
    errors: total.errors,
    rateLimited: total.rateLimited,
    p50: total.p50,
    p95: total.p95,
    p99: total.p99,
    perOperation,
    cpuMs,
    cpuMsPerRequest: Math.round((cpuMs / Math.max(1, total.requests)) * 100) / 100,
    rssMb: rss.reduce((a, b) => a + b, 0),
    load: [loadStart, await loadavg()],
    samples,
  };
}
