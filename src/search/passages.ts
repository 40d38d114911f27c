/** A searchable piece of one item: the title for context plus a few lines of its body. */
export interface Passage {
  /** 0-based position within the item. */
  no: number;
  /** The item's title ('' if none): matched with more weight than the rest. */
  title: string;
  /** Body text of this passage, with the nearest heading above it. */
  content: string;
  /** What is embedded and shown: title, then content. */
  text: string;
}

/** Limits of one passage: short enough that its vector is about one thing, long enough to carry context. */
export interface PassageLimits {
  maxLines: number;
  minLines: number;
  maxChars: number;
}

const DEFAULT_LIMITS: PassageLimits = { maxLines: 6, minLines: 3, maxChars: 600 };

const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;

interface Section {
  heading: string | null;
  blocks: string[][];
}

/** Splits an item into passages along headings and paragraphs, so a match deep in a long note comes back as itself. */
export function toPassages(title: string | null, body: string | null, values?: string, limits: PassageLimits = DEFAULT_LIMITS): Passage[] {
  const cleanTitle = (title ?? '').trim();
  const sections = toSections(body ?? '');
  const chunks: string[] = [];
  for (const section of sections) {
    for (const lines of groupBlocks(section.blocks, limits)) {
      // The heading travels with every chunk under it: "Insurance" above "renew by March" is what makes it findable.
      chunks.push([...(section.heading ? [section.heading] : []), ...lines].join('\n'));
    }
  }
  const extra = (values ?? '').trim();
  if (extra) {
    // Row values are short facts about the item as a whole, so they belong with its first passage.
    if (chunks.length === 0) chunks.push(extra);
    else chunks[0] = `${chunks[0]}\n${extra}`;
  }
  if (chunks.length === 0) return cleanTitle ? [{ no: 0, title: cleanTitle, content: '', text: cleanTitle }] : [];
  return chunks.map((content, no) => ({
    no,
    title: cleanTitle,
    content,
    text: cleanTitle ? `${cleanTitle}\n${content}` : content,
  }));
}

function toSections(body: string): Section[] {
  const sections: Section[] = [{ heading: null, blocks: [] }];
  let block: string[] = [];
  const flush = (): void => {
    if (block.length > 0) sections[sections.length - 1]!.blocks.push(block);
    block = [];
  };
  for (const raw of body.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trimEnd();
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      sections.push({ heading: heading[1] ?? '', blocks: [] });
    } else if (line.trim() === '') {
      flush();
    } else {
      block.push(line);
    }
  }
  flush();
  // A heading with nothing under it still says something (e.g. "## Done"), so keep it as its own text.
  return sections.map((s) => (s.blocks.length === 0 && s.heading ? { heading: null, blocks: [[s.heading]] } : s)).filter((s) => s.blocks.length > 0);
}

/** Packs paragraphs into chunks of at most maxLines/maxChars, merging short ones up to minLines. */
function groupBlocks(blocks: string[][], limits: PassageLimits): string[][] {
  const pieces = blocks.flatMap((b) => splitBlock(b, limits));
  const out: string[][] = [];
  let current: string[] = [];
  for (const piece of pieces) {
    const lines = current.length + piece.length;
    const chars = charCount(current) + charCount(piece);
    const fits = lines <= limits.maxLines && chars <= limits.maxChars;
    // Below minLines we prefer merging the next paragraph over a thin passage, as long as it fits.
    if (current.length > 0 && (!fits || current.length >= limits.minLines)) {
      out.push(current);
      current = [];
    }
    current = current.concat(piece);
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** Cuts one paragraph that is too long into pieces that fit, breaking long lines at sentence ends. */
function splitBlock(block: string[], limits: PassageLimits): string[][] {
  const lines = block.flatMap((line) => (line.length > limits.maxChars ? splitLongLine(line, limits.maxChars) : [line]));
  const out: string[][] = [];
  let current: string[] = [];
  for (const line of lines) {
    if (current.length > 0 && (current.length >= limits.maxLines || charCount(current) + line.length > limits.maxChars)) {
      out.push(current);
      current = [];
    }
    current.push(line);
  }
  if (current.length > 0) out.push(current);
  return out;
}

function splitLongLine(line: string, maxChars: number): string[] {
  const sentences = line.match(/[^.!?]+(?:[.!?]+|$)\s*/g) ?? [line];
  const out: string[] = [];
  let current = '';
  for (const sentence of sentences) {
    if (current && current.length + sentence.length > maxChars) {
      out.push(current.trim());
      current = '';
    }
    // A single sentence longer than the limit is cut at a word boundary rather than kept whole.
    let rest = sentence;
    while (rest.length > maxChars) {
      const cut = rest.lastIndexOf(' ', maxChars);
      const at = cut > maxChars / 2 ? cut : maxChars;
      out.push(rest.slice(0, at).trim());
      rest = rest.slice(at);
    }
    current += rest;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

function charCount(lines: string[]): number {
  return lines.reduce((n, l) => n + l.length + 1, 0);
}
