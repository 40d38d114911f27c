import { describe, expect, it } from '@jest/globals';
import { parseEdit } from '../../../src/domain/body/index.js';

describe('parseEdit', () => {
  it.each<[string, unknown, unknown]>([
    ['a replace', { op: 'replace', handle: 'k3f', markdown: '- [ ] x' }, { op: 'replace', handle: 'k3f', markdown: '- [ ] x' }],
    ['an insert at the end', { op: 'insert', position: 'end', markdown: 'x' }, { op: 'insert', position: 'end', markdown: 'x' }],
    [
      'an insert after a handle copied with brackets and capitals',
      { op: 'insert', position: 'after', handle: ' \u27e6K3F\u27e7 ', markdown: 'x' },
      { op: 'insert', position: 'after', handle: 'k3f', markdown: 'x' },
    ],
    ['a delete', { op: 'delete', handle: 'b4x9' }, { op: 'delete', handle: 'b4x9' }],
    ['a setChecked', { op: 'setChecked', handle: 'k3f', checked: false }, { op: 'setChecked', handle: 'k3f', checked: false }],
    ['a move to the start', { op: 'move', handle: 'k3f', position: 'start' }, { op: 'move', handle: 'k3f', position: 'start' }],
    [
      'a move before a target',
      { op: 'move', handle: 'k3f', position: 'before', target: 'm2p' },
      { op: 'move', handle: 'k3f', position: 'before', target: 'm2p' },
    ],
    [
      'a replaceText removing text',
      { op: 'replaceText', handle: 'k3f', find: 'old', replace: '' },
      { op: 'replaceText', handle: 'k3f', find: 'old', replace: '' },
    ],
    [
      'a rewrite to an empty body',
      { op: 'rewrite', baseVersion: 'v0123456789ab', markdown: '' },
      { op: 'rewrite', baseVersion: 'v0123456789ab', markdown: '' },
    ],
  ])('accepts %s', (_name, raw, expected) => {
    expect(parseEdit(raw)).toEqual(expected);
  });

  it.each<[string, unknown, RegExp]>([
    ['null', null, /must be an object/],
    ['an array', [], /must be an object/],
    ['an unknown op', { op: 'frobnicate' }, /^op must be one of replace, insert, delete, setChecked, move, replaceText, rewrite \(got "frobnicate"\)\.$/],
    ['a missing handle', { op: 'delete' }, /^handle must be a block handle string/],
    ['a handle that is not one', { op: 'delete', handle: 'the milk' }, /^handle "the milk" is not a handle/],
    ['empty markdown for replace', { op: 'replace', handle: 'k3f', markdown: '  \n' }, /^markdown is empty; use delete/],
    ['markdown that is not a string', { op: 'insert', position: 'end', markdown: 42 }, /^markdown must be a string/],
    ['an insert after nothing', { op: 'insert', position: 'after', markdown: 'x' }, /^handle must be/],
    ['an unknown position', { op: 'insert', position: 'middle', markdown: 'x' }, /^position must be "before", "after", "start" or "end"/],
    ['a handle with position end', { op: 'insert', position: 'end', handle: 'k3f', markdown: 'x' }, /^handle must be left out when position is "end"/],
    ['checked as a string', { op: 'setChecked', handle: 'k3f', checked: 'yes' }, /^checked must be true or false/],
    ['a move after nothing', { op: 'move', handle: 'k3f', position: 'after' }, /^target must be a block handle/],
    ['a move to the end with a target', { op: 'move', handle: 'k3f', position: 'end', target: 'm2p' }, /^target must be left out/],
    ['an empty find', { op: 'replaceText', handle: 'k3f', find: '', replace: 'x' }, /^find must be a non-empty string/],
    ['a missing replace', { op: 'replaceText', handle: 'k3f', find: 'a' }, /^replace must be a string/],
    ['a rewrite without baseVersion', { op: 'rewrite', markdown: 'x' }, /^baseVersion must be the version string/],
    ['a misspelt field', { op: 'delete', handle: 'k3f', text: 'x' }, /^delete does not take "text"; its fields are op, handle\.$/],
  ])('refuses %s with a sentence naming the field', (_name, raw, message) => {
    const result = parseEdit(raw);
    expect(typeof result).toBe('string');
    expect(result).toMatch(message);
    expect(result).toMatch(/\.$/);
  });
});
