/**
 * Every relative link in the README and the pages under docs/ (and the other top-level guides)
 * reaches a file of the repository, and a link to a heading (`page.md#heading`, `#heading`)
 * reaches a heading that exists, named as GitHub names its anchors. Links with a scheme
 * (https:, mailto:) are left alone; links inside code are not links.
 */
import { describe, it, expect } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  'ARCHITECTURE.md',
  'SECURITY.md',
  'bench/README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Files git would publish: tracked, or new and not ignored. Without git, whatever is on disk. */
function publishedFiles(): Set<string> | null {
  try {
    return new Set(execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' }).split('\n').filter(Boolean));
  } catch {
    return null;
  }
}

/** The text with fenced code blocks and inline code spans blanked out. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** `[text](target)` and `![alt](target)` targets, without a title. */
function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const withoutCode = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = heading!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The problems of one page's links, as "page: target (why)". */
function brokenLinks(page: string, markdown: string, exists: (file: string) => boolean, read: (file: string) => string): string[] {
  const problems: string[] = [];
  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [file, anchor] = target.split('#') as [string, string | undefined];
    const resolved = file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), decodeURIComponent(file)));
    if (resolved.startsWith('..')) {
      problems.push(`${page}: ${target} (outside the repository)`);
      continue;
    }
    if (!exists(resolved)) {
      problems.push(`${page}: ${target} (no such file in the repository)`);
      continue;
    }
    if (anchor && resolved.endsWith('.md') && !headingAnchors(read(resolved)).has(anchor.toLowerCase())) problems.push(`${page}: ${target} (no such heading)`);
  }
  return problems;
}

describe('links in the README and docs', () => {
  const published = publishedFiles();
  const exists = (file: string) => {
    const clean = file.replace(/\/$/, '');
    if (!published) return existsSync(clean);
    return published.has(clean) || [...published].some((f) => f.startsWith(`${clean}/`));
  };
  const read = (file: string) => readFileSync(file, 'utf8');

  it('finds a broken link, a missing heading and a link outside the repository (the check can fail)', () => {
    const page = 'docs/example.md';
    const markdown = [
      '# Example',
      'See [the README](../README.md), [a heading](#example), [gone](missing.md), [no heading](../README.md#no-such-heading),',
      '[outside](../../elsewhere.md) and [a site](https://example.org). `[code](not-a-link.md)`',
      '```md',
      '[in a block](also-not-a-link.md)',
      '```',
    ].join('\n');
    const files: Record<string, string> = { 'README.md': '# listkeeper\n## The two commands\n', [page]: markdown };
    expect(
      brokenLinks(
        page,
        markdown,
        (f) => f in files,
        (f) => files[f]!,
      ),
    ).toEqual([
      'docs/example.md: missing.md (no such file in the repository)',
      'docs/example.md: ../README.md#no-such-heading (no such heading)',
      'docs/example.md: ../../elsewhere.md (outside the repository)',
    ]);
  });

  it('names headings as GitHub does', () => {
    expect([...headingAnchors('# Events, webhooks and the feed\n## `make test`: its stages\n## Rate limits\n## Rate limits\n')]).toEqual([
      'events-webhooks-and-the-feed',
      'make-test-its-stages',
      'rate-limits',
      'rate-limits-1',
    ]);
  });

  it.each(PAGES)('%s: every relative link reaches a file and heading of the repository', (page) => {
    expect(brokenLinks(page, read(page), exists, read)).toEqual([]);
  });
});
