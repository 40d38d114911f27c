/**
 * Timings for block-level body editing on a generated 1 MB body.
 * Run: npx tsx bench/body.bench.ts   (prints one JSON line)
 *
 * "cold" is the first read of a body nobody parsed yet (micromark parsing); "from stored
 * outline" a first read in a process that finds the body's outline in the database;
 * "warm" is what an agent's read → edit → read cycle costs once the body is
 * parsed (each edit stores the body it produces, already parsed). Wall-clock
 * medians and minima are given with the CPU time, since the machine is shared.
 */
import { loadavg } from 'node:os';
import { applyEdits, readForEditing, type BodyEdit } from '../src/domain/body/index.js';
import { clearParsedBodies, parsedBody } from '../src/domain/body/cache.js';
import { fromOutline, toOutline } from '../src/domain/body/outline.js';
import { editableOf } from '../src/domain/body/read.js';
import { generateBody } from './body-text.js';

const TARGET_SIZE = 1_000_000;
const EDITS = 50;
const RUNS = 9;

/** 50 edits spread over the body, mixing every handle-addressed op; `run` makes their text unique per run. */
function spreadEdits(handles: readonly string[], text: string, run: number): BodyEdit[] {
  const edits: BodyEdit[] = [];
  const used = new Set<string>();
  const handleLines = text.split('\n').filter((line) => line.includes('\u27e6'));
  const step = Math.floor(handleLines.length / (EDITS + 1));
  for (let k = 1; edits.length < EDITS; k++) {
    const line = handleLines[k * step];
    if (!line) break;
    const handle = /\u27e6([a-z0-9]+)\u27e7/.exec(line)?.[1];
    if (!handle || used.has(handle) || !handles.includes(handle)) continue;
    used.add(handle);
    const isTask = line.includes('- [ ]') || line.includes('- [x]');
    const isItem = /^\s*\u27e6[a-z0-9]+\u27e7 - /.test(line);
    switch (edits.length % 5) {
      case 0:
        edits.push(isTask ? { op: 'setChecked', handle, checked: true } : { op: 'insert', position: 'after', handle, markdown: `Inserted paragraph ${run}.` });
        break;
      case 1:
        edits.push({ op: 'replace', handle, markdown: isItem ? `- [ ] replaced item ${run}` : `Replaced paragraph text ${run}.` });
        break;
      case 2:
        edits.push({ op: 'insert', position: 'before', handle, markdown: isItem ? `- [ ] new item ${run}` : `### New heading ${run}` });
        break;
      case 3:
        edits.push({ op: 'delete', handle });
        break;
      default:
        edits.push({ op: 'move', handle, position: 'end' });
    }
  }
  return edits;
}

interface Timing {
  ms: number;
  cpuMs: number;
}

function time<T>(fn: () => T): Timing & { value: T } {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const value = fn();
  return { ms: performance.now() - start, cpuMs: process.cpuUsage(cpu).user / 1000, value };
}

function summary(timings: readonly Timing[]): { medianMs: number; minMs: number; medianCpuMs: number } {
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const round = (n: number): number => Math.round(n * 10) / 10;
  return {
    medianMs: round(median(timings.map((t) => t.ms))),
    minMs: round(Math.min(...timings.map((t) => t.ms))),
    medianCpuMs: round(median(timings.map((t) => t.cpuMs))),
  };
}

function main(): void {
  const body = generateBody(TARGET_SIZE);
  clearParsedBodies();
  const cold = time(() => readForEditing(body));
  const { handles, text } = cold.value;

  // A process that has not parsed the body but finds its stored outline (src/domain/bodyOutlines.ts):
  // JSON to blocks, then handles. The database read of the outline is not included.
  const outline = toOutline(parsedBody(body));
  const fromStored: Timing[] = [];
  for (let run = 0; run < RUNS; run++) fromStored.push(time(() => editableOf(fromOutline(body, outline)!, 'v')));

  const warmRead: Timing[] = [];
  const warmApply: Timing[] = [];
  const readAfterApply: Timing[] = [];
  let edits = 0;
  for (let run = 0; run < RUNS; run++) {
    warmRead.push(time(() => readForEditing(body)));
    const batch = spreadEdits(handles, text, run);
    edits = batch.length;
    const applied = time(() => applyEdits(body, batch));
    if (!applied.value.ok) throw new Error(`edits refused: ${applied.value.error}`);
    warmApply.push(applied);
    const result = applied.value.body;
    // First read of the edited body: parsed already (by applyEdits), handles still to assign.
    readAfterApply.push(time(() => readForEditing(result)));
  }

  console.log(
    JSON.stringify({
      bodyBytes: Buffer.byteLength(body),
      blocks: handles.length,
      edits,
      runs: RUNS,
      loadAverage: Math.round(loadavg()[0]! * 10) / 10,
      coldReadForEditing: { ms: Math.round(cold.ms), cpuMs: Math.round(cold.cpuMs) },
      readForEditingFromStoredOutline: { ...summary(fromStored), outlineBytes: outline.length },
      warmReadForEditing: summary(warmRead),
      warmApplyEdits: summary(warmApply),
      readForEditingAfterApply: summary(readAfterApply),
    }),
  );
}

main();
