/** A labeled query: relevance 2 = answers it, 1 = related; kind `none` has nothing relevant. */
export interface Judged {
  id: string;
  kind: string;
  text: string;
  relevant: Record<string, number>;
}

/** Labeled item ids in the order a backend returned them. */
export type Ranked = string[];

/** Scores of one query. */
export interface QueryEval {
  id: string;
  kind: string;
  /** Null for queries without an answer, where nDCG is undefined. */
  ndcg10: number | null;
  recall10: number | null;
  results: number;
}

/** Means over a set of queries. */
export interface Means {
  ndcg10: number;
  recall10: number;
  queries: number;
}

/** Everything reported for one mode of one backend. */
export interface ModeReport {
  answerable: Means;
  byKind: Record<string, Means>;
  noAnswer: { queries: number; meanResults: number };
  latency: { p50Ms: number; p95Ms: number };
  perQuery: QueryEval[];
}

/** nDCG@10 with gains 2^rel - 1 (ideal ranking from all judged items) and recall@10 of items with rel >= 1. */
export function evaluate(query: Judged, ranked: Ranked): QueryEval {
  const relevant = Object.entries(query.relevant);
  if (relevant.length === 0) return { id: query.id, kind: query.kind, ndcg10: null, recall10: null, results: ranked.length };
  const top = ranked.slice(0, 10);
  const dcg = top.reduce((sum, id, i) => sum + (2 ** (query.relevant[id] ?? 0) - 1) / Math.log2(i + 2), 0);
  const ideal = relevant
    .map(([, rel]) => rel)
    .sort((a, b) => b - a)
    .slice(0, 10)
    .reduce((sum, rel, i) => sum + (2 ** rel - 1) / Math.log2(i + 2), 0);
  const found = top.filter((id) => (query.relevant[id] ?? 0) > 0).length;
  return { id: query.id, kind: query.kind, ndcg10: dcg / ideal, recall10: found / relevant.length, results: ranked.length };
}

/** Averages per kind, over all answerable queries, and the result count for no-answer queries. */
export function summarize(evals: QueryEval[], latenciesMs: number[]): ModeReport {
  const answerable = evals.filter((e) => e.ndcg10 !== null);
  const none = evals.filter((e) => e.ndcg10 === null);
  const byKind: Record<string, Means> = {};
  for (const kind of new Set(answerable.map((e) => e.kind))) byKind[kind] = means(answerable.filter((e) => e.kind === kind));
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return {
    answerable: means(answerable),
    byKind,
    noAnswer: { queries: none.length, meanResults: none.length ? none.reduce((s, e) => s + e.results, 0) / none.length : 0 },
    latency: { p50Ms: sorted[Math.floor(sorted.length / 2)] ?? NaN, p95Ms: sorted[Math.floor(sorted.length * 0.95)] ?? NaN },
    perQuery: evals,
  };
}

function means(evals: QueryEval[]): Means {
  const n = evals.length || 1;
  return {
    ndcg10: evals.reduce((s, e) => s + (e.ndcg10 ?? 0), 0) / n,
    recall10: evals.reduce((s, e) => s + (e.recall10 ?? 0), 0) / n,
    queries: evals.length,
  };
}
