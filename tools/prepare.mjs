// `npm install` in a clone builds the SDK's sdk/dist/ and the service's dist/ (the `prepare` script), then fetches the
// default search model into models/ (tools/fetch-models.mjs: never fails the install); in an installed package, which
// ships dist/ and no sources, there is nothing to build and no compiler: it does nothing.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

if (!existsSync('src/main.ts') || !existsSync('tsconfig.build.json')) process.exit(0);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// The SDK first (its own build: ES modules and CommonJS): the command line is typed against its declarations (sdk/dist).
for (const [script, args] of [
  ['sdk/build.mjs', []],
  [tsc, ['-p', 'tsconfig.build.json']],
  ['tools/fetch-models.mjs', []],
]) {
  if (!existsSync(script)) continue;
  const result = spawnSync(process.execPath, [script, ...args], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
