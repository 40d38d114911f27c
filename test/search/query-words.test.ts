/**
 * Correcting misspelt query words towards the words the embedding model knows (query-words.ts), for queries whose
 * words no indexed text uses.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import '../support/fastcheck.js';
import { closestKnownWord, correctedText, editDistance, checkCorrections, topicOf } from '../../src/search/query-words.js';

/** The whole optimal-string-alignment table, as a reference for the bounded, row-by-row editDistance. */
function referenceDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

const known = new Map([
  ['insurance', -9.9],
  ['dentist', -11.7],
  ['pressure', -9.6],
  ['boiled', -10.5],
  ['bottle', -9.0],
  ['battle', -9.5],
]);

describe('editDistance with a bound', () => {
  it('is the edit distance when that is within the bound, and above the bound otherwise', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'é'), maxLength: 12 });
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 3 }), (a, b, max) => {
        const exact = referenceDistance(a, b);
        expect(editDistance(a, b)).toBe(exact);
        const bounded = editDistance(a, b, max);
        if (exact <= max) expect(bounded).toBe(exact);
        else expect(bounded).toBeGreaterThan(max);
      }),
      { numRuns: 2000 },
    );
  });

  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('insurnace', 'insurance', 2)).toBe(1);
    expect(editDistance('dentsit', 'dentist', 1)).toBe(1);
  });
});

describe('closestKnownWord', () => {
  it('corrects a misspelt word to a known word within its typo allowance', () => {
    expect(closestKnownWord('insurnace', known)).toBe('insurance');
    expect(closestKnownWord('dentsit', known)).toBe('dentist');
    expect(closestKnownWord('presure', known)).toBe('pressure');
  });

  it('leaves alone a known word, a short word, and a word with nothing close', () => {
    expect(closestKnownWord('insurance', known)).toBeNull();
    expect(closestKnownWord('shed', known)).toBeNull();
    expect(closestKnownWord('chimney', known)).toBeNull();
  });

  it('prefers fewer edits, then the commoner word', () => {
    // "bxttle" is one edit from both "battle" and "bottle", the commoner; "battl" is one from "battle", two from "bottle".
    expect(closestKnownWord('bxttle', known)).toBe('bottle');
    expect(closestKnownWord('battl', known)).toBe('battle');
  });
});

describe('checkCorrections', () => {
  // "dentsit" is spelt so in some indexed text: it is matched as written, not corrected.
  const unindexed = new Set(['insurnace', 'chimney']);
  it('corrects only words the index neither knows nor corrected', () => {
    const groups = [['insurnace'], ['chimney'], ['presure', 'pressure'], ['dentsit']];
    const fixed = checkCorrections(groups, (w) => unindexed.has(w), known);
    expect(fixed).toEqual([['insurnace', 'insurance'], ['chimney'], ['presure', 'pressure'], ['dentsit']]);
    expect(correctedText('Insurnace for the chimney, presure', fixed)).toBe('insurance for the chimney, pressure');
  });

  it('drops the corrections of a word the model knows: a real word is not a typo', () => {
    // The index offered "sleep" and "sweet" for "sweep" (its items say "swept").
    const groups = [
      ['sweep', 'sleep', 'sweet'],
      ['chimeny', 'chimney'],
    ];
    expect(checkCorrections(groups, () => false, new Map([...known, ['sweep', -12]]))).toEqual([['sweep'], ['chimeny', 'chimney']]);
  });

  it('changes nothing without known words', () => {
    const groups = [['insurnace']];
    expect(checkCorrections(groups, () => true, null)).toBe(groups);
  });
});

describe('topicOf', () => {
  it('drops the words of a request, keeping its topic', () => {
    expect(topicOf('Find the note about the car insurance')).toBe('car insurance');
    expect(topicOf('where did I put the notes on the piano tuner')).toBe('piano tuner');
    expect(topicOf('Does the user have anything saved about who teaches me Chinese?')).toBe('who teaches me Chinese');
    expect(topicOf('Is there anything saved about a tattoo appointment?')).toBe('tattoo appointment');
  });

  it('leaves a query that is all topic as it is, tasks that start with a verb too', () => {
    for (const text of ['car insurance', 'Get the chimney swept', 'how do visitors get online', 'find']) expect(topicOf(text)).toBe(text);
  });
});
