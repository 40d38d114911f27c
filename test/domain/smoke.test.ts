import { describe, it, expect } from '@jest/globals';
import { fromMarkdown } from 'mdast-util-from-markdown';
describe('toolchain', () => { it('runs ESM TypeScript', () => { expect(fromMarkdown('# hi').children[0]?.type).toBe('heading'); }); });
