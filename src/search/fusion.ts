/**
 * How keyword and semantic evidence for one passage become one score, and when that score is too weak to show.
 *
 * Why not reciprocal rank fusion: RRF only sees ranks, so the best of a list of weak matches counts as much as the
 * best of a list of strong ones. On our labeled set equal-weight RRF lost to semantic search alone, and it gives no
 * score to put a floor on. Instead every candidate (from either leg) is scored on BOTH signals and the two are mixed
 * by a convex combination, which Bruch et al. (2023, "An Analysis of Fusion Functions for Hybrid Retrieval") found to
 * beat RRF and to need only one weight, tuned from few labeled queries:
 *
 *   score = alpha * cosine + (1 - alpha) * keyword
 *
 * Both inputs are already on a fixed 0..1 scale without per-query normalisation: `cosine` of unit vectors, and
 * `keyword` = the share of the query's content words found in the passage (a typo-corrected word counts as found).
 * Per-query min-max normalisation would again make the best weak match look strong.
 *
 * The floor is one threshold on that same score, so "nothing relevant" means neither signal nor their sum is
 * convincing. With the chosen weights a passage clears it with all content words present, or with a paraphrase
 * cosine that USE-lite only reaches for related text, or with half the words and a moderate cosine.
 */
export interface FusionParams {
  /** Weight of the cosine similarity; the keyword share gets 1 - alpha. */
  alpha: number;
  /** Minimum fused score for hybrid results. */
  floor: number;
  /** Minimum cosine for semantic-only results. */
  semanticFloor: number;
  /** Minimum keyword share for keyword-only results. */
  keywordFloor: number;
}

/** Chosen on bench/search/labeled.json (see bench/search/README.md for the sweep); not per-query-kind. */
export const DEFAULT_FUSION: FusionParams = { alpha: 0.6, floor: 0.3, semanticFloor: 0.4, keywordFloor: 0.5 };

/** Evidence for one passage. */
export interface PassageEvidence {
  /** Cosine similarity to the query, or null when there is no vector. */
  cosine: number | null;
  /** Share of query content words present, 0..1. */
  keyword: number;
  /** Postgres ts_rank, used only to order passages with equal keyword share. */
  rank: number;
}

/** The passage's score in the given mode, or null when it falls below that mode's floor. */
export function fusedScore(e: PassageEvidence, mode: 'hybrid' | 'keyword' | 'semantic', p: FusionParams): number | null {
  // ts_rank is unbounded but small; squashed and scaled it only breaks ties between equal keyword shares.
  const tiebreak = (e.rank / (1 + e.rank)) * 1e-3;
  if (mode === 'keyword') return e.keyword >= p.keywordFloor ? e.keyword + tiebreak : null;
  const cosine = e.cosine ?? 0;
  if (mode === 'semantic') return e.cosine !== null && cosine >= p.semanticFloor ? cosine : null;
  const score = p.alpha * cosine + (1 - p.alpha) * e.keyword + tiebreak;
  return score >= p.floor ? score : null;
}
