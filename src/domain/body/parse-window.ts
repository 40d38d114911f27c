import type { ListItem, Node, Paragraph, RootContent } from 'mdast';
import type { Block, BlockKind } from './block-types.js';
import { lineStartBefore } from './lines.js';
import { parseMarkdown } from './markdown.js';

/** A unit as one window's parse sees it; the last ones may still change when the window grows. */
export interface Candidate {
  readonly start: number;
  readonly blocks: readonly Block[];
}

/** Parse text[from, to) and cut it into unit candidates with absolute starts. */
export function parseWindow(text: string, from: number, to: number): Candidate[] {
  const tree = parseMarkdown(text.slice(from, to));
  const out: Candidate[] = [];
  const open = (nodeStart: number): number => (out.length === 0 ? from : lineStartBefore(text, nodeStart, from));
  let floor = 0;
  for (const node of tree.children) {
    if (node.type === 'list') {
      for (const item of node.children) {
        const start = open(from + startOf(item));
        const blocks: Block[] = [];
        collectItem(item, node.ordered === true, text, from, start, 0, blocks);
        out.push({ start, blocks });
      }
    } else {
      const start = open(from + ownStart(node, floor));
      const blocks: Block[] = [];
      collectNode(node, text, from, start, 0, blocks, floor);
      out.push({ start, blocks });
    }
    floor = endOf(node);
  }
  return out;
}

/**
 * Where a node's own text starts. A setext heading whose paragraph began with
 * link definitions is reported from the first definition on, overlapping
 * them; its own text starts at its first child.
 */
function ownStart(node: Node, floor: number): number {
  const start = startOf(node);
  if (start >= floor) return start;
  const first = (node as Node & { children?: Node[] }).children?.[0];
  return first ? Math.max(startOf(first), floor) : floor;
}

function collectNode(node: RootContent, text: string, base: number, unitStart: number, depth: number, out: Block[], floor = 0): void {
  if (node.type === 'list') {
    for (const item of node.children) collectItem(item, node.ordered === true, text, base, unitStart, depth, out);
    return;
  }
  out.push({
    kind: kindOf(node),
    start: base + ownStart(node, floor) - unitStart,
    end: base + endOf(node) - unitStart,
    depth,
    item: null,
    ...(node.type === 'html' ? { endsInHtml: true as const } : {}),
  });
}

function collectItem(item: ListItem, ordered: boolean, text: string, base: number, unitStart: number, depth: number, out: Block[]): void {
  const start = base + startOf(item);
  const marker = readMarker(text, start, ordered);
  const children = item.children;
  const firstList = children.findIndex((child) => child.type === 'list');
  let end: number;
  if (firstList === -1) end = base + endOf(item);
  else if (firstList > 0) end = base + endOf(children[firstList - 1]!);
  else end = start + marker.length;
  const first = children[0];
  const checkbox = item.checked != null && first ? findCheckbox(text, start + marker.length, base + startOf(first)) : -1;
  const lastOwn = children[(firstList === -1 ? children.length : firstList) - 1];
  out.push({
    kind: 'listItem',
    start: start - unitStart,
    end: end - unitStart,
    depth,
    item: { ordered, marker, checkbox: checkbox === -1 ? -1 : checkbox - start },
    ...(lastOwn?.type === 'html' ? { endsInHtml: true as const } : {}),
  });
  if (firstList === -1) return;
  for (let i = firstList; i < children.length; i++) collectNode(children[i]!, text, base, unitStart, depth + 1, out, i > 0 ? endOf(children[i - 1]!) : 0);
}

function kindOf(node: RootContent): BlockKind {
  switch (node.type) {
    case 'heading':
    case 'code':
    case 'blockquote':
    case 'table':
    case 'thematicBreak':
    case 'html':
    case 'definition':
    case 'footnoteDefinition':
      return node.type;
    case 'paragraph':
      return isImageOnly(node) ? 'image' : 'paragraph';
    default:
      return 'other';
  }
}

/**
 * A paragraph holding one inline image and nothing else. Reference images
 * ("![a][ref]") do not count: whether they are images depends on a definition
 * that may sit anywhere in the body, and a block's kind must not.
 */
function isImageOnly(node: Paragraph): boolean {
  let images = 0;
  for (const child of node.children) {
    if (child.type === 'image') images++;
    else if (!(child.type === 'text' && child.value.trim() === '')) return false;
  }
  return images === 1;
}

function readMarker(text: string, start: number, ordered: boolean): string {
  if (!ordered) return text.charAt(start);
  let i = start;
  while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
  return text.slice(start, i + 1);
}

/** The parser reports the task paragraph as starting after "[x] "; the checkbox is the last "[" before it. */
function findCheckbox(text: string, after: number, paragraphStart: number): number {
  const at = text.lastIndexOf('[', paragraphStart - 1);
  return at >= after && text.charAt(at + 2) === ']' ? at : -1;
}

function startOf(node: Node): number {
  const offset = node.position?.start.offset;
  if (offset === undefined) throw new Error(`parser gave a ${node.type} node without a position`);
  return offset;
}

function endOf(node: Node): number {
  const offset = node.position?.end.offset;
  if (offset === undefined) throw new Error(`parser gave a ${node.type} node without a position`);
  return offset;
}
