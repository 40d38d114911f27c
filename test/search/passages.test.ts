import { describe, expect, it } from '@jest/globals';
import { toPassages } from '../../src/search/passages.js';
import { editDistance, contentWords } from '../../src/search/query-words.js';

describe('passages', () => {
  it('keeps a short item as one passage with its title and row values', () => {
    const [only, ...rest] = toPassages('Dune', null, 'author: Frank Herbert');
    expect(rest).toEqual([]);
    expect(only?.text).toBe('Dune\nauthor: Frank Herbert');
  });

  it('splits a long note at headings and paragraphs, each passage titled and under its heading', () => {
    const body = ['Intro line one.', 'Intro line two.', '', '## Wifi', 'Password is blue-otter.', '', '## Mesh', 'Unplug it for ten seconds.'].join('\n');
    const passages = toPassages('Home network', body);
    const wifi = passages.find((p) => p.text.includes('blue-otter'));
    expect(wifi?.text).toBe('Home network\nWifi\nPassword is blue-otter.');
    expect(wifi?.text).not.toContain('Intro');
    expect(passages.map((p) => p.no)).toEqual(passages.map((_, i) => i));
  });

  it('never makes a passage longer than the limits, even from one huge paragraph', () => {
    const body = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const passages = toPassages('Long', body, undefined, { maxLines: 6, minLines: 3, maxChars: 200 });
    expect(passages.length).toBeGreaterThan(4);
    for (const p of passages) expect(p.content.length).toBeLessThanOrEqual(200);
    expect(passages.map((p) => p.content).join(' ')).toContain('Sentence number 39');
  });

  it('drops filler words from queries but keeps the words that name the thing', () => {
    expect(contentWords('Find the note about the car insurance')).toEqual(['car', 'insurance']);
  });

  it('counts a swap of neighbouring letters as one edit', () => {
    expect(editDistance('insurnace', 'insurance')).toBe(1);
    expect(editDistance('pasport', 'passport')).toBe(1);
    expect(editDistance('bear', 'beard')).toBe(1);
    expect(editDistance('cake', 'lake')).toBe(1);
    expect(editDistance('abc', 'xyz')).toBe(3);
  });
});
