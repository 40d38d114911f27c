/** Running the command line from source, on a test server's database, as the CLI suites do. */
import { spawn } from 'node:child_process';
import { childEnv } from './env.js';

/** Runs `listkeeper <args>` (src/cli/main.ts) on the database at `dbUrl`, with `input` on standard input, and no listkeeper setting from the shell. */
export function runCli(dbUrl: string, args: string[], input = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env: childEnv({ DATABASE_URL: dbUrl }) });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (d) => {
      stdout += String(d);
    });
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}
