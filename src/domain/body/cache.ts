import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { parseBody, type ParsedBody } from './blocks.js';

/**
 * Parsed bodies, kept by version. Parsing with micromark costs seconds per
 * megabyte, while an agent's read → edit → edit cycle touches the same body
 * (and the bodies our own edits produce) again and again: applyEdits stores
 * the body it produces here, already parsed incrementally.
 */

/** At most this many bodies, of at most this many characters together (one body may fill it). */
export const PARSED_BODIES_KEPT = 64;
export const PARSED_CHARACTERS_KEPT = 32 * 1024 * 1024;

const entries = new LRUCache<string, ParsedBody>({
  max: PARSED_BODIES_KEPT,
  maxSize: PARSED_CHARACTERS_KEPT,
  sizeCalculation: (parsed) => Math.max(1, parsed.text.length),
});

/** Fingerprint of the exact text: "v" + 12 hex characters of its SHA-256. */
export function bodyVersion(body: string): string {
  return versionOf(createHash('sha256').update(body).digest('hex'));
}

/** The version of a body whose full SHA-256 (hex) is known. */
export function versionOf(sha256Hex: string): string {
  return `v${sha256Hex.slice(0, 12)}`;
}

/** The parsed form of a body, from the cache or parsed now. */
export function parsedBody(body: string, version = bodyVersion(body)): ParsedBody {
  const cached = entries.get(version);
  if (cached?.text === body) return cached;
  const parsed = parseBody(body);
  rememberParsed(parsed, version);
  return parsed;
}

/** The parsed form of a body when this process has it, without parsing. */
export function cachedParsed(body: string, version = bodyVersion(body)): ParsedBody | undefined {
  const cached = entries.peek(version);
  return cached?.text === body ? cached : undefined;
}

/** Store a parsed body (e.g. one built incrementally by an edit). */
export function rememberParsed(parsed: ParsedBody, version = bodyVersion(parsed.text)): void {
  // A body larger than the whole cache is not kept, and the one it replaces is forgotten.
  entries.set(version, parsed);
}

/** Forget every parsed body (for benchmarks and tests that measure cold parsing). */
export function clearParsedBodies(): void {
  entries.clear();
}
