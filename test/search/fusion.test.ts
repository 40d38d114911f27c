import { describe, expect, it } from '@jest/globals';
import { DEFAULT_FUSION, fusedScores, type PassageEvidence } from '../../src/search/fusion.js';

const passage = (cosine: number | null, keyword: number, rank = 0): PassageEvidence => ({ cosine, keyword, rank });

/** Indexes of `evidence` in hybrid order, without those below the floor. */
function hybridOrder(evidence: PassageEvidence[]): number[] {
  const scores = fusedScores(evidence, 'hybrid', DEFAULT_FUSION);
  return scores
    .map((score, i) => ({ score, i }))
    .filter((s): s is { score: number; i: number } => s.score !== null)
    .sort((a, b) => b.score - a.score)
    .map((s) => s.i);
}

describe('fusedScores', () => {
  // Cosines and keyword shares of "shed lock" on the labeled set (bench/search/labeled.json).
  const shedLock = passage(0.63, 1); // "Fit a lock on the shed"
  const stolenFromSheds = passage(0.366, 0.5); // "Neighbourhood watch: two bikes stolen from sheds"
  const gutters = passage(0.517, 0); // "Clean the gutters": sounds alike, no query word

  it('ranks a partial word match above a passage that only sounds alike when another passage holds every word', () => {
    expect(hybridOrder([gutters, stolenFromSheds, shedLock])).toEqual([2, 1]);
  });

  it('weighs a partial word match little when no passage holds every word (a paraphrase)', () => {
    // Without the full match the query reads as a paraphrase: the near-meaning passage stays, the half match is noise.
    expect(hybridOrder([gutters, stolenFromSheds])).toEqual([0]);
  });

  it('lets a passage with no query word through on meaning alone, above a higher bar for a look-up', () => {
    const closeInMeaning = passage(0.55, 0);
    expect(hybridOrder([closeInMeaning])).toEqual([0]);
    expect(hybridOrder([closeInMeaning, shedLock])).toEqual([1]);
    expect(hybridOrder([passage(0.6, 0), shedLock])).toEqual([1, 0]);
  });

  it('leaves keyword-only and semantic-only scores alone', () => {
    const evidence = [gutters, stolenFromSheds, shedLock];
    expect(fusedScores(evidence, 'keyword', DEFAULT_FUSION)).toEqual([null, 0.5, 1]);
    expect(fusedScores(evidence, 'semantic', DEFAULT_FUSION)).toEqual([0.517, null, 0.63]);
    expect(fusedScores([gutters, stolenFromSheds], 'semantic', DEFAULT_FUSION)).toEqual([0.517, null]);
  });

  it('breaks ties between equal keyword shares by the full-text rank only', () => {
    const [a, b] = fusedScores([passage(0.5, 0.5, 0.1), passage(0.5, 0.5, 0.3)], 'keyword', DEFAULT_FUSION);
    expect(b!).toBeGreaterThan(a!);
    expect(b! - a!).toBeLessThan(1e-3);
  });
});
