/**
 * How keyword and semantic evidence for one passage become one score, and when that score is too weak to show.
 *
 * Why not reciprocal rank fusion: RRF only sees ranks, so the best of a list of weak matches counts as much as the
 * best of a list of strong ones, and it leaves no score to put a floor on. Instead every candidate (from either
 * leg) is scored on BOTH signals, mixed by a convex combination, which Bruch et al. (2023, "An Analysis of Fusion
 * Functions for Hybrid Retrieval") found to beat RRF with a single weight tuned on few labeled queries:
 *
 *   score = alpha * cosine + (1 - alpha) * keyword ^ keywordExponent
 *
 * Both inputs are on fixed scales without per-query normalisation (which would make the best weak match look
 * strong): `cosine` of unit vectors, and `keyword` = the share of the query's content words found in the passage
 * (a typo-corrected word counts as found). The exponent 2 makes partial word matches count little ("car
 * insurance" vs "Renew home insurance": half the words, a quarter of the weight) while a passage with all the
 * words keeps full weight: a shared word is weak evidence, all of them strong evidence.
 *
 * The floor is one threshold on that same score. With the defaults a passage clears it with all content words
 * present, with half of them and cosine >= 0.39, or with no shared word and cosine >= 0.5. Semantic-only search
 * uses that same bar (floor / alpha), so the modes compare at the same "nothing relevant" strictness; keyword-only
 * search, the fallback without an embedder, keeps passages with at least half the content words.
 *
 * Look-ups: when some candidate passage holds every content word of the query (as typed or typo-corrected), the
 * query is most likely a look-up of words the person knows are there ("shed lock", "Kinder Scout"), and a
 * passage sharing only some of them is better evidence than a passage that merely sounds alike. Such queries mix
 * with `allWords` (a lower alpha and exponent: half the words weigh 0.35 instead of 0.25 of the keyword side,
 * and a passage with no query word needs cosine >= 0.58 instead of 0.5 to clear the same floor). When no passage
 * holds all the words (paraphrases, most mixed-intent queries), a partial match is usually a shared common word
 * on a wrong item, and the default weights stand. On the labeled set this lifted exact queries above keyword
 * search alone and changed no query of another kind for the worse (bench/search/README.md).
 *
 * Tuning (bench/search/relevance.ts --sweep, 2-fold cross-validated over the labeled queries): with the keyword
 * exponent 2, alpha 0.6-0.7 with floor 0.35-0.4 is a plateau. USE-lite gives unrelated passages cosines as high as
 * real paraphrases get, so the floor is a trade-off, not a separation: floor 0.4 returns fewer results for
 * no-answer queries but drops paraphrases such as "car insurance" vs a note on a "vehicle policy renewal", which
 * the service must find; hence 0.35 (the figures: bench/search/README.md, "Floors").
 */
export interface FusionParams {
  /** Weight of the cosine similarity; the keyword share gets 1 - alpha. */
  alpha: number;
  /** Minimum fused score for hybrid results; semantic-only results need cosine >= floor / alpha. */
  floor: number;
  /** Minimum keyword share for keyword-only results. */
  keywordFloor: number;
  /** The keyword share is raised to this power before mixing. */
  keywordExponent: number;
  /** Hybrid weights for a query some candidate passage holds every content word of (a look-up). */
  allWords: { alpha: number; keywordExponent: number };
}

/** Chosen on bench/search/labeled.json; one setting for every kind of query (a look-up is told by its candidates). */
export const DEFAULT_FUSION: FusionParams = {
  alpha: 0.7,
  floor: 0.35,
  keywordFloor: 0.5,
  keywordExponent: 2,
  allWords: { alpha: 0.6, keywordExponent: 1.5 },
};

/**
 * The fusion an embedder's vectors were fitted with: cosines of one model are on another scale than another's
 * (USE-lite gives unrelated text ~0.2, BGE ~0.5), so a local model carries the weights and cut-off fitted for it
 * (models/models.json, bench/search/candidates.ts); any other embedder gets the defaults.
 */
export function fusionOf(embedder: object | null): FusionParams {
  return (embedder as { fusion?: FusionParams } | null)?.fusion ?? DEFAULT_FUSION;
}

/** Evidence for one passage. */
export interface PassageEvidence {
  /** Cosine similarity to the query, or null when there is no vector. */
  cosine: number | null;
  /** Share of query content words present, 0..1. */
  keyword: number;
  /** Postgres ts_rank, used only to order passages with equal keyword share. */
  rank: number;
}

/**
 * The scores of one query's candidate passages in the given mode, in their order; null where a passage falls below
 * that mode's floor. Hybrid weights depend on the candidates as a whole (see "Look-ups" above), so a backend
 * scores all of a query's candidates in one call.
 */
export function fusedScores(evidence: PassageEvidence[], mode: 'hybrid' | 'keyword' | 'semantic', p: FusionParams): (number | null)[] {
  const lookUp = mode === 'hybrid' && evidence.some((e) => e.keyword >= 1);
  const weights = lookUp ? p.allWords : { alpha: p.alpha, keywordExponent: p.keywordExponent };
  return evidence.map((e) => {
    // ts_rank is unbounded but small; squashed and scaled it only breaks ties between equal keyword shares.
    const tiebreak = (e.rank / (1 + e.rank)) * 1e-3;
    if (mode === 'keyword') return e.keyword >= p.keywordFloor ? e.keyword + tiebreak : null;
    const cosine = e.cosine ?? 0;
    if (mode === 'semantic') return e.cosine !== null && cosine * p.alpha >= p.floor ? cosine : null;
    const score = weights.alpha * cosine + (1 - weights.alpha) * e.keyword ** weights.keywordExponent + tiebreak;
    return score >= p.floor ? score : null;
  });
}
