/**
 * Run by offline-search.test.ts inside `unshare --net` (a network namespace with only loopback, brought up
 * first): checks that the machine is out of reach, starts the built service with the environment it was given,
 * saves two notes through the API, indexes them with `listkeeper search reindex` and searches by meaning.
 * Prints one JSON line: { unreachable, embedder, indexed, titles }. Exits non-zero with the service's log on failure.
 */
import { execFile, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'bin/listkeeper.js');
const base = `http://127.0.0.1:${process.env.PORT}`;

/** How a connection to Maven Central's address ends here: an error code, or 'connected'. */
function connectOutside() {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '151.101.0.209', port: 443 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err) => resolve(err.code));
  });
}

const unreachable = await connectOutside();
const server = spawn(process.execPath, [path.join(root, 'dist/src/main.js')], { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
let log = '';
server.stderr.on('data', (d) => (log += d.toString()));
const exited = new Promise((resolve) => server.once('exit', resolve));
try {
  // The service logs one JSON object a line; it is ready to search once it says so (after listening).
  const ready = await new Promise((resolve, reject) => {
    server.once('exit', (code) => reject(new Error(`the service exited (${code}) before search was ready`)));
    createInterface({ input: server.stdout }).on('line', (line) => {
      log += `${line}\n`;
      let entry = null;
      try {
        entry = JSON.parse(line);
      } catch {
        // Not a log entry (a library writing to stdout): kept in the log only.
      }
      if (entry?.msg === 'search is ready') resolve(entry);
    });
  });
  const env = process.env;
  await run(process.execPath, [cli, 'user', 'create', '--email', 'ada@example.com', '--name', 'Ada'], { env });
  const key = (await run(process.execPath, [cli, 'apikey', 'create', '--email', 'ada@example.com'], { env })).stdout.trim();
  const api = (pathAndQuery, init = {}) =>
    fetch(`${base}/api/v1${pathAndQuery}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' } });
  const items = [
    { title: 'Vehicle policy renewal', body: 'Allianz renews on 3 March; premium 640 a year, compare quotes two weeks before.' },
    { title: 'Chocolate cake', body: 'Bake 35 minutes.' },
  ];
  const saved = await api('/items', { method: 'POST', body: JSON.stringify({ listId: 'notes', items }) });
  if (saved.status !== 201) throw new Error(`POST /items answered ${saved.status}`);
  // Indexes now and returns when done, so the search below does not wait on the service's own pump.
  const indexed = (await run(process.execPath, [cli, 'search', 'reindex', '--email', 'ada@example.com'], { env })).stdout.trim();
  const found = await api(`/search?q=${encodeURIComponent('car insurance')}`);
  const titles = (await found.json()).results.map((r) => r.title);
  console.log(JSON.stringify({ unreachable, embedder: ready.embedder, indexed, titles }));
} catch (err) {
  console.error(`${err instanceof Error ? err.message : err}\n--- service log ---\n${log}`);
  process.exitCode = 1;
} finally {
  server.kill('SIGTERM');
  await exited;
}
