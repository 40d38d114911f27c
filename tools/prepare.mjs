// `npm install` in a clone builds dist/ (the `prepare` script); in an installed package, which
// ships dist/ and no sources, there is nothing to build and no compiler: it does nothing.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

if (!existsSync('src/main.ts') || !existsSync('tsconfig.build.json')) process.exit(0);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
process.exit(result.status ?? 1);
