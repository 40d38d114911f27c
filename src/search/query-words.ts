/**
 * Words people put around what they are looking for ("find the note about ..."): they name the app's own things,
 * not the thing sought, so they are dropped before keyword matching (the embedding still sees the whole query).
 */
const FILLER = new Set(
  (
    'find show search look looking get give tell where what which when who whose how is are was were do does did ' +
    'the a an my our your me i we about for of on in to with from that this these those there any some all ' +
    'note notes item items list lists entry entries thing things stuff saved save wrote written remember ' +
    'please can could would should need want'
  ).split(' '),
);

/** Lower-cases and strips accents, so "Café" and "cafe" compare equal in Node as they do through unaccent. */
export function foldWord(word: string): string {
  return word.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** Splits text into folded word tokens (letters and digits). */
export function tokenize(text: string): string[] {
  return foldWord(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/** Words worth matching by keyword: the query without filler words (all of it if nothing else is left). */
export function contentWords(query: string): string[] {
  const words = tokenize(query);
  const content = words.filter((w) => !FILLER.has(w));
  return [...new Set(content.length > 0 ? content : words)];
}

/** Words kept in the typo vocabulary: long enough to be worth correcting towards, not numbers. */
export function vocabularyWords(text: string): string[] {
  return tokenize(text).filter((w) => w.length >= 3 && w.length <= 32 && !/^\d+$/.test(w));
}

/**
 * Edits allowed between a query word and a vocabulary word, by the query word's length: none below 5 letters
 * (too many short words are one edit apart: bear/bean, meat/meal), one up to 8, two from 9. Meilisearch's defaults.
 */
export function allowedTypos(word: string): number {
  if (word.length < 5) return 0;
  return word.length < 9 ? 1 : 2;
}

/** Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The query with each word that has typo corrections replaced by the closest one. */
export function correctedText(text: string, groups: string[][]): string {
  const fixes = new Map(groups.filter((g) => g.length > 1).map((g) => [g[0]!, g[1]!]));
  if (fixes.size === 0) return text;
  return text.replace(/[\p{L}\p{N}]+/gu, (word) => fixes.get(foldWord(word)) ?? word);
}
