/** The generated Markdown body of the body benchmarks (bench/body.bench.ts, the first-parse case of bench/run.ts). */

/** A deterministic mixed document: headings, prose, nested task lists, fenced Markdown, tables, quotes. */
export function generateBody(size: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const section =
      `## Section ${i}\n\n` +
      `Paragraph ${i} with *emphasis*, a [link](https://example.com/${i}) and \`code\`.\n` +
      `It continues on a second line to look like prose.\n\n` +
      `- [ ] task ${i} one\n` +
      `- [x] task ${i} two\n` +
      `  - [ ] sub-task ${i} a\n` +
      `  - [ ] sub-task ${i} b\n` +
      `- plain item ${i}\n\n` +
      '```md\n' +
      `# not a heading ${i}\n` +
      `- not an item\n` +
      '```\n\n' +
      `| key | value |\n|-----|-------|\n| k${i} | v${i} |\n\n` +
      `> quoted ${i}\n\n`;
    parts.push(section);
    length += section.length;
  }
  return parts.join('');
}
