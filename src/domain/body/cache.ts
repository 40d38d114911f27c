import { createHash } from 'node:crypto';
import { parseBody, type ParsedBody } from './blocks.js';

/**
 * Parsed bodies, kept by version. Parsing with micromark costs seconds per
 * megabyte, while an agent's read → edit → edit cycle touches the same body
 * (and the bodies our own edits produce) again and again: applyEdits stores
 * the body it produces here, already parsed incrementally.
 */

const MAX_ENTRIES = 64;
const MAX_CHARS = 32 * 1024 * 1024;

const entries = new Map<string, ParsedBody>();
let chars = 0;

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
  if (cached && cached.text === body) {
    entries.delete(version);
    entries.set(version, cached);
    return cached;
  }
  const parsed = parseBody(body);
  rememberParsed(parsed, version);
  return parsed;
}

/** The parsed form of a body when this process has it, without parsing. */
export function cachedParsed(body: string, version = bodyVersion(body)): ParsedBody | undefined {
  const cached = entries.get(version);
  return cached && cached.text === body ? cached : undefined;
}

/** Store a parsed body (e.g. one built incrementally by an edit). */
export function rememberParsed(parsed: ParsedBody, version = bodyVersion(parsed.text)): void {
  const previous = entries.get(version);
  if (previous) {
    chars -= previous.text.length;
    entries.delete(version);
  }
  if (parsed.text.length > MAX_CHARS) return;
  entries.set(version, parsed);
  chars += parsed.text.length;
  for (const [key, value] of entries) {
    if (entries.size <= MAX_ENTRIES && chars <= MAX_CHARS) break;
    entries.delete(key);
    chars -= value.text.length;
  }
}

/** Forget every parsed body (for benchmarks and tests that measure cold parsing). */
export function clearParsedBodies(): void {
  entries.clear();
  chars = 0;
}
