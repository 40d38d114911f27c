import { describe, expect, it } from '@jest/globals';
import { assignHandles, handleCandidate, stripHandles } from '../../../src/domain/body/handles.js';
import { readForEditing } from '../../../src/domain/body/read.js';

/** Two different content hashes whose first-choice handles collide. */
function collidingPair(): [number, number] {
  const seen = new Map<string, number>();
  for (let hash = 1; ; hash++) {
    const wanted = handleCandidate(hash, 0, 0, 3);
    const other = seen.get(wanted);
    if (other !== undefined) return [other, hash];
    seen.set(wanted, hash);
  }
}

describe('assignHandles', () => {
  it('gives each block its first-choice handle when nothing collides', () => {
    const hashes = [11, 22, 33];
    expect(assignHandles(hashes)).toEqual(hashes.map((h) => handleCandidate(h, 0, 0, 3)));
  });

  it('gives a contested handle to neither block, whatever their order', () => {
    const [a, b] = collidingPair();
    const contested = handleCandidate(a, 0, 0, 3);
    const forward = assignHandles([a, b]);
    const backward = assignHandles([b, a]);
    expect(forward).not.toContain(contested);
    expect(forward.every((h) => h.length === 4)).toBe(true);
    expect(backward).toEqual([forward[1], forward[0]]);
  });

  it('keeps a contested handle away from a block that only wants it later', () => {
    const [a, b] = collidingPair();
    const contested = handleCandidate(a, 0, 0, 3);
    const handles = assignHandles([a, b, 7, 8, 9]);
    expect(new Set(handles).size).toBe(5);
    expect(handles).not.toContain(contested);
  });

  it('tells identical blocks apart by their order, deterministically', () => {
    const handles = assignHandles([5, 5, 5]);
    expect(new Set(handles).size).toBe(3);
    expect(handles[0]).toBe(handleCandidate(5, 0, 0, 3));
    expect(assignHandles([5, 5, 5])).toEqual(handles);
  });

  // Handles an agent holds must survive an upgrade of the service: a change of these values is a breaking change.
  it('gives the same handles as every earlier version', () => {
    expect(readForEditing('# Groceries\n\n- [ ] milk\n- [ ] milk\n  - [x] brown\n\nSame.\n\nSame.\n').handles).toEqual([
      '4yz',
      '5ar',
      '8yr',
      '5xz',
      'h4c',
      '2z4',
    ]);
    const big = readForEditing(Array.from({ length: 1200 }, (_, i) => `- item ${i % 600}`).join('\n')).handles;
    expect([big[0], big[1], big[599], big[600], big[1199]]).toEqual(['fum4', '562w', 'ccj3', '8drd', 'qdg7']);
    expect(assignHandles([1, 1, 2, 3, 2 ** 52 + 7])).toEqual(['9h7', '3jj', 'n9y', 'b6r', 'rm7']);
  });

  it('uses 4-character handles in bodies with more than 1000 blocks', () => {
    const handles = assignHandles(Array.from({ length: 1001 }, (_, i) => i * 7919));
    expect(new Set(handles).size).toBe(1001);
    expect(handles.every((h) => h.length === 4)).toBe(true);
  });

  it('never produces a handle that is all letters or all digits, or uses look-alike characters', () => {
    const handles = assignHandles(Array.from({ length: 500 }, (_, i) => i));
    for (const handle of handles) {
      expect(handle).toMatch(/[a-z]/);
      expect(handle).toMatch(/[0-9]/);
      expect(handle).not.toMatch(/[ilo01]/);
    }
  });
});

describe('stripHandles', () => {
  it.each([
    ['a handle in front of a block', '\u27e6k3f\u27e7 - [ ] milk', '- [ ] milk'],
    ['handles on several lines', '\u27e6k3f\u27e7 # A\n\n  \u27e6m2p\u27e7 - b', '# A\n\n  - b'],
    ['a handle copied without its space', '\u27e6k3f\u27e7- x', '- x'],
    ['the escape in front of handle-like body text', '\u27e6\u27e7\u27e6ab2\u27e7 literal', '\u27e6ab2\u27e7 literal'],
    ['text without handles', 'plain [x] text', 'plain [x] text'],
  ])('removes %s', (_name, text, expected) => {
    expect(stripHandles(text)).toBe(expected);
  });
});
