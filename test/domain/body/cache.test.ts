/**
 * The parsed-body cache keeps the bodies used last, within a count and a number of characters.
 */
import { beforeEach, describe, expect, it } from '@jest/globals';
import { parseBody } from '../../../src/domain/body/blocks.js';
import {
  PARSED_BODIES_KEPT,
  PARSED_CHARACTERS_KEPT,
  bodyVersion,
  cachedParsed,
  clearParsedBodies,
  parsedBody,
  rememberParsed,
} from '../../../src/domain/body/cache.js';

const body = (n: number) => `# Body ${n}\n\n- [ ] step ${n}\n`;

/**
 * A parse standing for a body of `length` characters. Parsing megabytes takes seconds, and the
 * cache weighs an entry by its text alone, so a one-line parse carries the long text.
 */
function parsedOfLength(length: number, letter: string) {
  return { ...parseBody(letter), text: letter.repeat(length) };
}

describe('the parsed-body cache', () => {
  beforeEach(() => clearParsedBodies());

  it('answers a body it parsed with the same parse, and a changed text with a new one', () => {
    const first = parsedBody(body(1));
    expect(parsedBody(body(1))).toBe(first);
    expect(cachedParsed(body(1))).toBe(first);
    expect(cachedParsed(body(2))).toBeUndefined();
    // Another text under the same version (a hash collision) is parsed, not taken.
    expect(parsedBody(body(2), bodyVersion(body(1))).text).toBe(body(2));
  });

  it(`keeps the ${PARSED_BODIES_KEPT} bodies used last`, () => {
    const parses = Array.from({ length: PARSED_BODIES_KEPT }, (_, n) => parsedBody(body(n)));
    parsedBody(body(0)); // used again: now the newest
    parsedBody(body(PARSED_BODIES_KEPT)); // one more: the oldest unused goes
    expect(cachedParsed(body(0))).toBe(parses[0]);
    expect(cachedParsed(body(1))).toBeUndefined();
    expect(cachedParsed(body(2))).toBe(parses[2]);
    expect(cachedParsed(body(PARSED_BODIES_KEPT))).toBeDefined();
  });

  it('keeps no more characters than its limit, and no body larger than the limit', () => {
    const half = Math.floor(PARSED_CHARACTERS_KEPT / 2);
    const a = parsedOfLength(half, 'a');
    const b = parsedOfLength(half, 'b');
    const c = parsedOfLength(half, 'c');
    rememberParsed(a);
    rememberParsed(b);
    expect(cachedParsed(a.text)).toBe(a);
    rememberParsed(c); // a, b and c are over the limit: a, the oldest, goes
    expect(cachedParsed(a.text)).toBeUndefined();
    expect(cachedParsed(b.text)).toBe(b);
    expect(cachedParsed(c.text)).toBe(c);

    const whole = parsedOfLength(PARSED_CHARACTERS_KEPT + 1, 'd');
    rememberParsed(whole);
    expect(cachedParsed(whole.text)).toBeUndefined();
    expect(cachedParsed(c.text)).toBe(c);
  });
});
