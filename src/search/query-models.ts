/**
 * The models a search embeds its query with: the configured embedder, and while a rebuild after a model change is
 * unfinished, the previous one too (src/jobs/search-reindex.ts holds it). Each passage is compared only with the
 * query vectors of the model that made its vector, and scored with that model's fusion (its cosines are on its own
 * scale, so its own cut-off keeps the floor calibrated); a passage whose model is neither has no cosine and
 * competes on its words only. See docs/search.md "Rebuilding the index".
 */
import type { Embedder } from '../core/search-index.js';
import { fusedScores, fusionOf, type FusionParams, type PassageEvidence } from './fusion.js';

export interface QueryModel {
  embedder: Embedder;
  fusion: FusionParams;
}

/** The current model first (with the fusion the index was given, if any), then the previous one. */
export function queryModels(current: Embedder | null, fusion: FusionParams, previous: Embedder | null): QueryModel[] {
  if (!current) return [];
  const models = [{ embedder: current, fusion }];
  if (previous && previous.name !== current.name) models.push({ embedder: previous, fusion: fusionOf(previous) });
  return models;
}

/** The model of a stored vector by its embedder name: its place in `models`, or -1. */
export function modelOf(models: QueryModel[], embedder: string | null | undefined): number {
  return embedder ? models.findIndex((m) => m.embedder.name === embedder) : -1;
}

/**
 * The scores of one query's candidates, each with the fusion of its own model (`model[i]`, a place in `models`;
 * -1, no comparable vector: the current model's). Every candidate set is scored as a whole (fusion.ts "Look-ups").
 */
export function scoresPerModel(
  evidence: PassageEvidence[],
  model: number[],
  mode: 'hybrid' | 'keyword' | 'semantic',
  models: QueryModel[],
  fallback: FusionParams,
): (number | null)[] {
  const fusions = models.length > 0 ? models.map((m) => m.fusion) : [fallback];
  const scored = fusions.map((f) => fusedScores(evidence, mode, f));
  return evidence.map((_, i) => scored[Math.max(0, model[i] ?? -1)]![i]!);
}

/**
 * The query embedded by each model, in order. The current model's failure fails the search, as it always did; a
 * previous model that fails (its files went missing, its worker died) is left out, so its passages compete on
 * their words only instead of every search failing.
 */
export async function embedQuery(models: QueryModel[], text: string): Promise<{ models: QueryModel[]; vectors: Float32Array[][] }> {
  const vectors = await Promise.all(models.map((m, i) => (i === 0 ? m.embedder.embed([text]) : m.embedder.embed([text]).catch(() => null))));
  const kept = models.map((m, i) => ({ m, v: vectors[i] })).filter((x): x is { m: QueryModel; v: Float32Array[] } => x.v !== null);
  return { models: kept.map((x) => x.m), vectors: kept.map((x) => x.v) };
}

/** Adds the query as corrected to each model's vectors (a previous model that fails keeps the typed one only). */
export async function addCorrected(models: QueryModel[], vectors: Float32Array[][], text: string): Promise<void> {
  const fixed = await Promise.all(models.map((m, i) => (i === 0 ? m.embedder.embed([text]) : m.embedder.embed([text]).catch(() => []))));
  fixed.forEach((f, i) => vectors[i]!.push(...f));
}
