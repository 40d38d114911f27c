/**
 * The cut-off rules bench/search/candidates.ts fits beside the fusion weights: which of a query's ranked results
 * (best first, scored by the fused score) are shown. Every rule keeps a prefix of the ranking, so each query's
 * nDCG@10 and recall@10 are computed once per prefix length and a rule is scored by the lengths it keeps.
 *
 * - `single`: one floor on the fused score (what the product ships today).
 * - `gate`: a query-level gate on the best result's fused score (below it, the query returns nothing) and a lower
 *   per-result floor for the queries that pass it.
 * - `cosine-gate`: the same with the gate on the best cosine of the query's passages.
 * - `relative`: the floor, and a result more than `drop` below the best result's score is cut.
 * - `gate+relative`: the gate, the floor and the relative drop together.
 */
import { evaluate, type Judged } from './metrics.js';

export type RuleName = 'single' | 'gate' | 'cosine-gate' | 'relative' | 'gate+relative';
export const RULES: RuleName[] = ['single', 'gate', 'cosine-gate', 'relative', 'gate+relative'];

export interface Cut {
  floor: number;
  /** On the best fused score, or on the best cosine for `cosine-gate`. */
  gate?: number;
  /** Results more than this below the best one's score are cut. */
  drop?: number;
}

/** One query's ranking without a cut-off: fused scores best first, the best cosine, the figures of each prefix. */
export interface Ranked {
  scores: number[];
  bestCosine: number;
  /** Index k: nDCG@10 / recall@10 of the first k results (null for no-answer queries). */
  ndcg: (number | null)[];
  recall: (number | null)[];
}

export function ranked(query: Judged, ids: string[], scores: number[], bestCosine: number): Ranked {
  const prefixes = Array.from({ length: ids.length + 1 }, (_, k) => evaluate(query, ids.slice(0, k)));
  return { scores, bestCosine, ndcg: prefixes.map((e) => e.ndcg10), recall: prefixes.map((e) => e.recall10) };
}

/** How many of the ranked results the rule keeps. */
export function kept(r: Ranked, rule: RuleName, cut: Cut): number {
  const top = r.scores[0];
  if (top === undefined) return 0;
  if (cut.gate !== undefined && (rule === 'cosine-gate' ? r.bestCosine : top) < cut.gate) return 0;
  const bar = Math.max(cut.floor, cut.drop === undefined ? -Infinity : top - cut.drop);
  let k = 0;
  while (k < r.scores.length && r.scores[k]! >= bar) k++;
  return k;
}

/** The cut-offs tried for a rule. */
export function grid(rule: RuleName): Cut[] {
  const floors = Array.from({ length: 41 }, (_, i) => 0.2 + i * 0.0175);
  // Each rule's grid holds the single floor too (gate off, no drop), so a rule is never worse on the fitting queries.
  const cosines = [-1, ...Array.from({ length: 41 }, (_, i) => 0.1 + i * 0.02)];
  const drops = [0.02, 0.04, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2, 1];
  const out: Cut[] = [];
  for (const floor of floors) {
    if (rule === 'single') out.push({ floor });
    if (rule === 'relative') for (const drop of drops) out.push({ floor, drop });
    if (rule === 'cosine-gate') for (const gate of cosines) out.push({ floor, gate });
    for (const gate of floors.filter((g) => g >= floor)) {
      if (rule === 'gate') out.push({ floor, gate });
      if (rule === 'gate+relative') for (const drop of drops) out.push({ floor, gate, drop });
    }
  }
  return out;
}

export interface CutScore {
  all: number;
  byKind: Record<string, number>;
  recall10: number;
  noAnswerResults: number;
}

export function scoreCut(queries: Judged[], rankings: Ranked[], rule: RuleName, cut: Cut | null): CutScore {
  const sums: Record<string, { ndcg: number; n: number }> = {};
  let ndcg = 0;
  let recall = 0;
  let answerable = 0;
  let noAnswer = 0;
  let noAnswerResults = 0;
  queries.forEach((q, i) => {
    const r = rankings[i]!;
    const k = cut ? kept(r, rule, cut) : r.scores.length;
    const n = r.ndcg[k];
    if (n === null || n === undefined) {
      noAnswer++;
      noAnswerResults += k;
      return;
    }
    answerable++;
    ndcg += n;
    recall += r.recall[k]!;
    const s = (sums[q.kind] ??= { ndcg: 0, n: 0 });
    s.ndcg += n;
    s.n++;
  });
  return {
    all: ndcg / (answerable || 1),
    byKind: Object.fromEntries(Object.entries(sums).map(([k, s]) => [k, s.ndcg / s.n])),
    recall10: recall / (answerable || 1),
    noAnswerResults: noAnswer ? noAnswerResults / noAnswer : 0,
  };
}

/** The fitting objective: at most one result per no-answer query, then the best nDCG (fewer results break ties). */
export function objective(s: CutScore, maxNoAnswerResults: number): number {
  return s.noAnswerResults <= maxNoAnswerResults ? s.all - 0.01 * s.noAnswerResults : -1;
}
