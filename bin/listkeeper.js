#!/usr/bin/env node
// The listkeeper command; the code lives in src/cli (compiled to dist by `npm install` or `make build`).
// Loading it reads a few hundred modules: with a cold disk cache (the first command after a build
// or a boot) that can take many seconds, so on a terminal a command still loading says why it waits.
const notice = process.stderr.isTTY
  ? setTimeout(
      () => process.stderr.write('listkeeper: loading its code from disk (the first command after a build or a boot is slow; the next ones start at once)…\n'),
      3000,
    )
  : undefined;
notice?.unref();
await import('../dist/src/cli/main.js');
clearTimeout(notice);
