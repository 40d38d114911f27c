/**
 * The spec's two readings. openapi.yaml declares the served operations under `paths` and the
 * person's own (reached only from the web pages and the command line) under `x-person-paths`,
 * in the same form. The public reading leaves the person's out (and the tags only they use):
 * it is what is served, fuzzed, and read by the SDK and the MCP tools. The full reading has
 * them among the paths, each marked `x-surface: person`: the service's types and the
 * operation tables come from it.
 * @see ARCHITECTURE.md "One road for every write"
 */
import { readFile } from 'node:fs/promises';
import { bundleFromString, createConfig } from '@redocly/openapi-core';
import { parse } from 'yaml';

const PERSON_PATHS = 'x-person-paths';
export const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function asObject(value: Json | undefined): JsonObject {
  return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

function operationsOf(pathItem: JsonObject): JsonObject[] {
  return HTTP_METHODS.map((m) => pathItem[m])
    .filter((op) => op !== undefined)
    .map(asObject);
}

/** Both readings of the spec file, as plain documents (refs not yet resolved). */
export async function specReadings(specPath: string): Promise<{ publicDoc: JsonObject; fullDoc: JsonObject }> {
  const { [PERSON_PATHS]: personPaths, ...publicDoc } = parse(await readFile(specPath, 'utf8')) as JsonObject;
  const paths = asObject(publicDoc.paths);
  const fullPaths: JsonObject = { ...paths };
  for (const [route, rawItem] of Object.entries(asObject(personPaths))) {
    if (route in paths) throw new Error(`openapi.yaml: ${route} is under both paths and ${PERSON_PATHS}`);
    const item = structuredClone(asObject(rawItem));
    for (const op of operationsOf(item)) {
      // Neither a tool nor an SDK method: nothing outside the person's own surfaces reaches these.
      if (op['x-mcp'] || op['x-sdk']) throw new Error(`openapi.yaml: ${String(op.operationId)} under ${PERSON_PATHS} has x-mcp or x-sdk`);
      op['x-surface'] = 'person';
    }
    fullPaths[route] = item;
  }
  const publicTags = new Set(Object.values(paths).flatMap((item) => operationsOf(asObject(item)).flatMap((op) => (op.tags as string[] | undefined) ?? [])));
  const tags = ((publicDoc.tags as JsonObject[] | undefined) ?? []).filter((tag) => publicTags.has(String(tag.name)));
  return { publicDoc: { ...publicDoc, tags }, fullDoc: { ...publicDoc, paths: fullPaths } };
}

/**
 * One reading bundled into one document; `dereference` inlines every $ref (no cycles here).
 * Bundled as it is (refs kept), components no operation of the reading uses are left out, so
 * the public reading carries none that only the person's operations use (`make lint` allows
 * no other unused one).
 */
export async function bundleReading(doc: JsonObject, specPath: string, dereference: boolean): Promise<JsonObject> {
  const config = await createConfig({});
  const result = await bundleFromString({ source: JSON.stringify(doc), absoluteRef: specPath, config, dereference, removeUnusedComponents: !dereference });
  const problems = result.problems.filter((p) => p.severity === 'error');
  if (problems.length > 0) throw new Error(`openapi.yaml does not bundle: ${problems.map((p) => p.message).join('; ')}`);
  return result.bundle.parsed as JsonObject;
}
