/** The version of the listkeeper package this command belongs to. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The `version` of the nearest package.json named listkeeper above this file: src/cli/ when
 * run from source, dist/src/cli/ when built, so the depth differs.
 */
export function packageVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'listkeeper' && pkg.version) return pkg.version;
    } catch {
      // No package.json here, or not ours: look further up.
    }
    const parent = path.dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}
