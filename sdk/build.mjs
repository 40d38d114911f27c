// `npm run build`: dist/ as ES modules and dist/cjs/ as CommonJS (for require()), each with its
// own declarations; dist/cjs/package.json marks that folder CommonJS inside this ESM package.
// The OAuth helper (dist/oauth.js) is ESM only, as oauth4webapi is.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
for (const project of ['tsconfig.json', 'tsconfig.cjs.json']) {
  const result = spawnSync(process.execPath, [tsc, '-p', project], { cwd: here, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
writeFileSync(new URL('dist/cjs/package.json', import.meta.url), '{ "type": "commonjs" }\n');
