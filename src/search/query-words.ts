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
  return word
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
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

// Three rows of the distance table, reused: closestKnownWord compares a word with thousands of candidates.
let distanceRows: [Int32Array, Int32Array, Int32Array] = [new Int32Array(34), new Int32Array(34), new Int32Array(34)];

/**
 * Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of neighbours. With `max`, the
 * distance when it is at most `max`, otherwise some number above `max`: it stops as soon as a row of the table
 * exceeds it (every later row is at least that row's minimum).
 */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (distanceRows[0].length < b.length + 1) distanceRows = [new Int32Array(b.length + 1), new Int32Array(b.length + 1), new Int32Array(b.length + 1)];
  let [twoBack, previous, current] = distanceRows;
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        best = Math.min(best, twoBack[j - 2]! + 1);
      }
      current[j] = best;
      if (best < rowMin) rowMin = best;
    }
    if (rowMin > max) return max + 1;
    [twoBack, previous, current] = [previous, current, twoBack];
  }
  return previous[b.length]!;
}

/** The query with each word that has typo corrections replaced by the closest one. */
export function correctedText(text: string, groups: string[][]): string {
  const fixes = new Map(groups.filter((g) => g.length > 1).map((g) => [g[0]!, g[1]!]));
  if (fixes.size === 0) return text;
  return text.replace(/[\p{L}\p{N}]+/gu, (word) => fixes.get(foldWord(word)) ?? word);
}

/**
 * The commonest word of `known` within the typo allowance of `word` (fewest edits first), or null when `word` is
 * itself known or nothing is close enough. For query words no indexed text uses: see checkCorrections.
 */
export function closestKnownWord(word: string, known: ReadonlyMap<string, number>): string | null {
  const allowed = allowedTypos(word);
  if (allowed === 0 || known.has(word)) return null;
  let best: { word: string; edits: number; score: number } | null = null;
  for (const [candidate, score] of known) {
    if (Math.abs(candidate.length - word.length) > allowed) continue;
    const edits = editDistance(word, candidate, allowed);
    if (edits > allowed) continue;
    if (!best || edits < best.edits || (edits === best.edits && score > best.score)) best = { word: candidate, edits, score };
  }
  return best?.word ?? null;
}

/**
 * Typo corrections checked against a list of common words (known-words.ts: the local model's whole words):
 * - a word on the list is a real word, not a typo, and keeps no correction: "sweep" (the items say "swept")
 *   is not turned into "sleep" or "sweet", nor "planet" into "plant";
 * - a word that neither the index's vocabulary corrected nor any indexed text uses (`unindexed`) gets the closest
 *   word on the list, so "insurnace" is embedded as "insurance" and finds a note on a "vehicle policy renewal"
 *   in a workspace that never says "insurance" (the vector of a word the model cannot read is noise).
 * Without the list (it could not be read) the groups are returned as they are.
 */
export function checkCorrections(groups: string[][], unindexed: (word: string) => boolean, known: ReadonlyMap<string, number> | null): string[][] {
  if (!known) return groups;
  return groups.map((group) => {
    const word = group[0]!;
    if (known.has(word)) return group.length > 1 ? [word] : group;
    if (group.length > 1 || !unindexed(word)) return group;
    const fix = closestKnownWord(word, known);
    return fix ? [word, fix] : group;
  });
}

/**
 * How an agent or a person opens a request ("Find the note about", "Does the user have anything saved about", "where
 * did I put the notes on"): words about searching, not about the topic. Embedded, they pull every query towards every
 * note alike, so a real paraphrase scores less against the cut-off; the keyword side drops them as filler already.
 */
const REQUEST =
  /^\s*(?:(?:please|can you|could you)\s+)?(?:find|search(?: for)?|look(?: up| for)?|show(?: me)?|where(?:'s| is| are| did i (?:put|save|write))|do i have|does the user have|is there|are there|have i (?:got|saved|written))\s+(?:(?:any|anything|something|everything)\s+)?(?:(?:saved|written|noted|stored)\s+)?(?:(?:the|my|a|an|any|our)\s+)?(?:(?:notes?|items?|entry|entries|tasks?|lists?|things?)\s+)?(?:(?:about|on|for|regarding|where|that|with|of)\s+)?(?:(?:the|my|a|an|our)\s+)?/i;

/** The query without its request words and closing punctuation: what is embedded (the whole query when that is all). */
export function topicOf(text: string): string {
  const topic = text
    .replace(REQUEST, '')
    .replace(/[?!.]+\s*$/, '')
    .trim();
  return topic || text;
}
