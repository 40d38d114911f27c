import type { ParsedBody } from './blocks.js';

/**
 * Handles: short names for blocks, derived from the block's own text and the
 * column it starts at.
 *
 * A handle is 3 characters (4 in bodies with more than BIG_BODY blocks, and
 * for blocks that lost a contest, see below) from an alphabet without the
 * look-alikes i, l, o, 0, 1, and always mixes letters and digits, so it never
 * reads as a word or a number ("k3f", "7qm", "b4x9").
 *
 * Because the handle comes from the block itself, a block that an edit does
 * not touch keeps its handle in the next version. Identical blocks are told
 * apart by their order of occurrence. When two different blocks would get
 * the same handle, neither gets it: both move on to their next candidate.
 * That way a handle an agent still holds never silently starts naming a
 * different block that happens to coexist with the one it named.
 */

const LETTERS = 'abcdefghjkmnpqrstuvwxyz';
const DIGITS = '23456789';
const ALPHABET = LETTERS + DIGITS;
/** Above this many blocks, 3-character handles would collide too often to stay stable. */
const BIG_BODY = 1000;
const MAX_LEVEL = 64;

/** Handles for every block of a parsed body, in document order (memoised on the body). */
export function handlesOf(body: ParsedBody): readonly string[] {
  if (body.handles) return body.handles;
  const length = body.blockCount > BIG_BODY ? 4 : 3;
  const hashes: number[] = new Array<number>(body.blockCount);
  const occ: number[] = new Array<number>(body.blockCount);
  const firstCodes: number[] = new Array<number>(body.blockCount);
  const firstChoices: string[] = new Array<string>(body.blockCount);
  const seen = new OccurrenceCounter(body.blockCount);
  let i = 0;
  for (let u = 0; u < body.units.length; u++) {
    const base = body.starts[u]!;
    for (const block of body.units[u]!.blocks) {
      if (block.hash === undefined) block.hash = blockHash(body.text, base + block.start, base + block.end);
      const hash = block.hash;
      const k = seen.next(hash);
      // Blocks are shared between versions of a body, so their first choice is worth keeping.
      if (block.firstChoice === undefined || block.firstCode === undefined || block.firstChoiceKey !== k * 8 + length) {
        block.firstCode = candidateCode(hash, k, 0, length);
        block.firstChoice = handleOfCode(block.firstCode);
        block.firstChoiceKey = k * 8 + length;
      }
      hashes[i] = hash;
      occ[i] = k;
      firstCodes[i] = block.firstCode;
      firstChoices[i] = block.firstChoice;
      i++;
    }
  }
  body.handles = assignCodes(hashes, occ, firstCodes, firstChoices);
  return body.handles;
}

/** Map from handle to block index (memoised on the body). */
export function handleIndexOf(body: ParsedBody): ReadonlyMap<string, number> {
  if (body.handleIndex) return body.handleIndex;
  const index = new Map<string, number>();
  handlesOf(body).forEach((handle, i) => index.set(handle, i));
  body.handleIndex = index;
  return index;
}

/**
 * Give each content hash (in document order) a distinct handle. Candidates are
 * tried level by level; a candidate wanted by two blocks at the same level is
 * burnt for everyone, so the outcome does not depend on which block came first.
 */
export function assignHandles(hashes: readonly number[]): string[] {
  const length = hashes.length > BIG_BODY ? 4 : 3;
  const occ = occurrencesOf(hashes);
  const firstCodes = hashes.map((hash, i) => candidateCode(hash, occ[i]!, 0, length));
  return assignCodes(hashes, occ, firstCodes, firstCodes.map(handleOfCode));
}

/*
 * Candidates are numbers (see candidateCode) so that counting who wants which is array
 * indexing: Maps of strings made handle assignment slow on long bodies (bench/README.md).
 * `demand` counts the wants of the current level; `taken` marks what any earlier level
 * wanted. Both are module-level (5 MB, made on first use) and left all zero after every call.
 */
const CODE_SPACE = ALPHABET.length ** 3 + ALPHABET.length ** 4;
let demand = new Int32Array(0);
let taken = new Uint8Array(0);

function assignCodes(hashes: readonly number[], occ: readonly number[], firstCodes: readonly number[], firstChoices: readonly string[]): string[] {
  if (taken.length === 0) {
    demand = new Int32Array(CODE_SPACE);
    taken = new Uint8Array(CODE_SPACE);
  }
  const result: string[] = new Array<string>(hashes.length);
  const everWanted: number[] = [];
  try {
    let pending: number[] | null = null;
    for (let level = 0; pending === null || pending.length > 0; level++) {
      if (level === MAX_LEVEL) {
        assignLeftovers(pending ?? [], hashes, occ, result);
        break;
      }
      const count = pending === null ? hashes.length : pending.length;
      const wanted = new Array<number>(count);
      for (let j = 0; j < count; j++) {
        const i = pending === null ? j : pending[j]!;
        const c = level === 0 ? firstCodes[i]! : candidateCode(hashes[i]!, occ[i]!, level, 4);
        wanted[j] = c;
        demand[c]!++;
      }
      const next: number[] = [];
      for (let j = 0; j < count; j++) {
        const i = pending === null ? j : pending[j]!;
        const c = wanted[j]!;
        if (demand[c] === 1 && taken[c] === 0) result[i] = level === 0 ? firstChoices[i]! : handleOfCode(c);
        else next.push(i);
      }
      for (let j = 0; j < count; j++) {
        const c = wanted[j]!;
        demand[c] = 0;
        if (taken[c] === 0) {
          taken[c] = 1;
          everWanted.push(c);
        }
      }
      pending = next;
    }
  } finally {
    for (const c of everWanted) taken[c] = 0;
  }
  return result;
}

/** How many times each hash was seen before: an open-addressing table, as a Map of 53-bit numbers is slow. */
class OccurrenceCounter {
  private readonly keys: Float64Array;
  private readonly counts: Int32Array;
  private readonly mask: number;

  constructor(expected: number) {
    let size = 16;
    while (size < expected * 2) size *= 2;
    this.keys = new Float64Array(size).fill(-1);
    this.counts = new Int32Array(size);
    this.mask = size - 1;
  }

  /** The number of earlier calls with this hash (a non-negative integer). */
  next(hash: number): number {
    let slot = mix32((hash >>> 0) ^ Math.floor(hash / 4294967296)) & this.mask;
    for (;;) {
      const key = this.keys[slot]!;
      if (key === hash) return this.counts[slot]!++;
      if (key === -1) {
        this.keys[slot] = hash;
        this.counts[slot] = 1;
        return 0;
      }
      slot = (slot + 1) & this.mask;
    }
  }
}

function occurrencesOf(hashes: readonly number[]): number[] {
  const seen = new OccurrenceCounter(hashes.length);
  return hashes.map((hash) => seen.next(hash));
}

/** The handle a block with this content hash and occurrence index wants at a given level. */
export function handleCandidate(hash: number, occurrence: number, level: number, length: number): string {
  return handleOfCode(candidateCode(hash, occurrence, level, length));
}

/**
 * The candidate as a number: the alphabet indices of its characters in base 31, 3-character
 * ones in [0, 31^3) and 4-character ones offset by 31^3 after them.
 */
function candidateCode(hash: number, occurrence: number, level: number, length: number): number {
  const lo = hash >>> 0;
  const hi = Math.floor(hash / 4294967296) >>> 0;
  let state = mix32(lo ^ mix32(hi ^ mix32(occurrence + 0x9e3779b9) ^ mix32(level * 0x85ebca6b + 0x27d4eb2f)));
  for (;;) {
    let code = 0;
    let scale = 1;
    let letters = 0;
    for (let i = 0; i < length; i++) {
      state = mix32(state + 0x6d2b79f5);
      const c = state % ALPHABET.length;
      if (c < LETTERS.length) letters++;
      code += c * scale;
      scale *= ALPHABET.length;
    }
    if (letters > 0 && letters < length) return length === 3 ? code : ALPHABET.length ** 3 + code;
  }
}

function handleOfCode(code: number): string {
  const size = ALPHABET.length;
  const length = code < size ** 3 ? 3 : 4;
  let rest = length === 3 ? code : code - size ** 3;
  let out = '';
  for (let i = 0; i < length; i++) {
    out += ALPHABET[rest % size];
    rest = Math.floor(rest / size);
  }
  return out;
}

/** Practically unreachable (64 contested levels); keeps assignment total and deterministic anyway. */
function assignLeftovers(pending: readonly number[], hashes: readonly number[], occ: readonly number[], result: string[]): void {
  const late = new Set<number>();
  for (const i of pending) {
    for (let level = MAX_LEVEL; ; level++) {
      const c = candidateCode(hashes[i]!, occ[i]!, level, 4);
      if (taken[c] === 0 && !late.has(c)) {
        late.add(c);
        result[i] = handleOfCode(c);
        break;
      }
    }
  }
}

/**
 * Hash of a block: its text and the indentation it starts at, so equal items
 * at different nesting levels are not taken for copies of each other.
 */
export function blockHash(text: string, start: number, end: number): number {
  let indent = 0;
  for (let i = start; i > 0; i--) {
    const c = text.charCodeAt(i - 1);
    if (c === 10 || c === 13) break;
    indent++;
  }
  return contentHash(text, start, end, indent);
}

/** 53-bit hash of text[start, end), ignoring CR so CRLF and LF copies of a block hash alike. */
export function contentHash(text: string, start: number, end: number, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = start; i < end; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 13) continue;
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

function mix32(x: number): number {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

// ---- display ---------------------------------------------------------------

/** Opening and closing brackets of a handle as displayed: "⟦k3f⟧ ". */
export const OPEN = '\u27e6';
export const CLOSE = '\u27e7';

// "⟦⟧" in front of a handle-like token marks it as body text, not a handle.
const HANDLE_OR_ESCAPE_IN_BODY = /\u27e6(?:\u27e7|[a-z0-9]{3,4}\u27e7)/g;
const DISPLAYED_TOKEN = /\u27e6\u27e7(\u27e6\u27e7|\u27e6[a-z0-9]{3,4}\u27e7 ?)|\u27e6[a-z0-9]{3,4}\u27e7 ?/g;

/** Format a handle as it appears in front of a block. */
export function displayHandle(handle: string): string {
  return `${OPEN}${handle}${CLOSE} `;
}

/**
 * Insert handles in front of blocks. Body text that looks like a handle (or
 * like the "⟦⟧" escape) gets "⟦⟧" in front, so stripping handles gives back
 * the body exactly.
 */
export function renderWithHandles(text: string, at: readonly number[], handles: readonly string[]): string {
  const escapes: number[] = [];
  if (text.includes(OPEN)) {
    for (const m of text.matchAll(HANDLE_OR_ESCAPE_IN_BODY)) escapes.push(m.index);
  }
  const parts: string[] = [];
  let last = 0;
  let e = 0;
  for (let i = 0; i < at.length; i++) {
    const pos = at[i]!;
    while (e < escapes.length && escapes[e]! < pos) {
      parts.push(text.slice(last, escapes[e]!), OPEN + CLOSE);
      last = escapes[e++]!;
    }
    parts.push(text.slice(last, pos), displayHandle(handles[i]!));
    last = pos;
  }
  while (e < escapes.length) {
    parts.push(text.slice(last, escapes[e]!), OPEN + CLOSE);
    last = escapes[e++]!;
  }
  parts.push(text.slice(last));
  return parts.join('');
}

/** Remove displayed handles ("⟦k3f⟧ ") from text, undoing the "⟦⟧" escape. */
export function stripHandles(text: string): string {
  if (!text.includes(OPEN)) return text;
  return text.replace(DISPLAYED_TOKEN, (_match: string, escaped: string | undefined) => escaped ?? '');
}
