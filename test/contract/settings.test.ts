/**
 * The contract run proves Schemathesis' defaults pass: its settings file turns no check off and
 * changes no generation default, and the docker form in docs/testing.md is the command CI runs with the
 * Python package (test/contract/run.sh): same version, settings file, hooks file, arguments, checks
 * and phases.
 */
import { describe, it, expect } from '@jest/globals';
import { readFileSync } from 'node:fs';

const read = (file: string) => readFileSync(file, 'utf8');
const makefile = read('Makefile');
const runScript = read('test/contract/run.sh');
const settings = read('test/contract/schemathesis.toml');
const testingDoc = read('docs/testing.md');

/** docs/testing.md's `docker run … schemathesis/schemathesis` command, continuation lines joined. */
function dockerCommand(): string {
  const block = /```sh\n([^`]*docker run[^`]*schemathesis\/schemathesis[^`]*)```/.exec(testingDoc)?.[1];
  if (!block) throw new Error('docs/testing.md has no docker form of the Schemathesis run');
  return block.slice(block.indexOf('docker run')).replace(/\\\n/g, ' ').replace(/\s+/g, ' ').trim();
}

/** The arguments run.sh always passes to `schemathesis run`, with the defaults of its settings. */
function scriptArguments(): string {
  const body = /^args=\(run "\$base\/api\/v1\/openapi\.json"\n([\s\S]*?)\)$/m.exec(runScript)?.[1];
  if (!body) throw new Error('test/contract/run.sh: no args=(run …) array');
  const examples = /CONTRACT_EXAMPLES:-(\d+)/.exec(makefile)?.[1];
  const workers = /CONTRACT_WORKERS:-(\d+)/.exec(runScript)?.[1];
  return body
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .join(' ')
    .replace('"$examples"', String(examples))
    .replace('"$workers"', String(workers));
}

describe('the contract run', () => {
  it('leaves every check on and every generation setting at its default', () => {
    const tables = settings.split('\n').filter((line) => /^\s*\[/.test(line));
    expect(tables.filter((t) => /generation|checks/.test(t))).toEqual([]);
    expect(settings).not.toMatch(/allow-x00|exclude-checks|enabled\s*=\s*false|^\s*(checks|phases|mode)\s*=/m);
  });

  it('has the docker form in docs/testing.md that CI runs with the Python package', () => {
    const docker = dockerCommand();
    const version = /^SCHEMATHESIS_VERSION := (\S+)$/m.exec(makefile)?.[1];
    expect(docker).toContain(`schemathesis/schemathesis:${version} --config-file /contract/schemathesis.toml run `);
    // The hooks file (test/contract/hooks.py): loaded by both, from the folder docker mounts.
    expect(docker).toContain('-e SCHEMATHESIS_HOOKS=/contract/hooks.py ');
    expect(runScript).toMatch(/SCHEMATHESIS_HOOKS="\$root\/test\/contract\/hooks\.py" \\\n\s+"\$schemathesis" --config-file/);
    // run.sh's arguments, less the reports and the terminal's colours, follow the URL as they are.
    const shared = scriptArguments()
      .replace(/--report junit --report-dir "\$out"/, '')
      .replace('--no-color', '')
      .replace(/\s+/g, ' ')
      .trim();
    expect(shared).toBe('--checks all --max-examples 100 --workers 2');
    expect(docker.endsWith(`/api/v1/openapi.json ${shared}`)).toBe(true);
  });
});
