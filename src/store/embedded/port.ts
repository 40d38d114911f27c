import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { isErrno } from './fs-helpers.js';

/** The only address Postgres listens on. */
export const HOST = '127.0.0.1';
/** Starts tried when another process takes the chosen port before Postgres binds it. */
export const PORT_ATTEMPTS = 3;

/** Explicit port wins (and must be free); else the port remembered in dataDir if free; else any free port. */
export async function choosePort(dataDir: string, wanted: number | undefined, log: (line: string) => void): Promise<number> {
  if (wanted !== undefined) {
    if (!(await isPortFree(wanted))) {
      throw new Error(`Port ${wanted} on ${HOST} is already in use; choose another port or omit it to pick a free one.`);
    }
    return wanted;
  }
  const remembered = Number.parseInt(await fs.readFile(path.join(dataDir, 'port'), 'utf8').catch(() => ''), 10);
  if (Number.isInteger(remembered) && remembered > 0) {
    if (await isPortFree(remembered)) return remembered;
    const next = await findFreePort();
    log(`port ${remembered} (used last time) is busy, using ${next}`);
    return next;
  }
  return findFreePort();
}

/** Saved for choosePort, which prefers the last port on the next start. */
export async function rememberPort(dataDir: string, port: number): Promise<void> {
  await fs.writeFile(path.join(dataDir, 'port'), `${port}\n`);
}

/** Probes by binding the same address Postgres will listen on. */
function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (error) => (isErrno(error, 'EADDRINUSE') || isErrno(error, 'EACCES') ? resolve(false) : reject(error)));
    server.listen({ port, host: HOST, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Lets the kernel pick an unused port; the small race until Postgres binds it is handled by retrying. */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port: 0, host: HOST, exclusive: true }, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port assigned'))));
    });
  });
}
