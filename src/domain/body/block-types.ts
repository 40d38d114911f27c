/** The shapes of a parsed body: units, blocks and their positions (parsed by blocks.ts). */

/** What kind of Markdown block a block is. */
export type BlockKind =
  | 'heading'
  | 'paragraph'
  | 'image'
  | 'listItem'
  | 'code'
  | 'blockquote'
  | 'table'
  | 'thematicBreak'
  | 'html'
  | 'definition'
  | 'footnoteDefinition'
  | 'other';

/** List-item facts of a block. */
export interface ItemInfo {
  readonly ordered: boolean;
  /** The marker as written: "-", "*", "+", "3.", "12)". */
  readonly marker: string;
  /** Offset of the task checkbox's "[" from the block start, -1 when the item has none. */
  readonly checkbox: number;
}

/** One editable block, positioned within its unit. */
export interface Block {
  readonly kind: BlockKind;
  /** Offsets (UTF-16 code units) relative to the start of the block's unit. */
  readonly start: number;
  readonly end: number;
  /** 0 at top level; list nesting adds one per level. */
  readonly depth: number;
  readonly item: ItemInfo | null;
  /** The block's own text ends in an HTML block, which runs on over following lines until a blank line. */
  readonly endsInHtml?: true;
  /** Content hash, filled in lazily by the handle code; units are shared between versions, so it is computed once. */
  hash?: number;
  /** Memoised first-choice handle and the occurrence/length it was made for (see handles.ts). */
  firstChoice?: string;
  firstCode?: number;
  firstChoiceKey?: number;
}

/** An independently parseable stretch of text; shared, never mutated, between versions of a body. */
export interface Unit {
  readonly length: number;
  readonly blocks: readonly Block[];
}

/** A body cut into units and blocks. */
export interface ParsedBody {
  readonly text: string;
  readonly units: readonly Unit[];
  /** Absolute start offset of each unit; units tile the text without gaps. */
  readonly starts: readonly number[];
  readonly blockCount: number;
  /** Memoised handle data (see handles.ts). */
  handles?: readonly string[];
  handleIndex?: ReadonlyMap<string, number>;
  flat?: FlatBlocks;
}

/** All blocks of a body in document order, with absolute offsets (index i = block i). */
export interface FlatBlocks {
  readonly blocks: readonly Block[];
  readonly starts: readonly number[];
  readonly ends: readonly number[];
}

/** A block with absolute offsets, in document order. */
export interface PlacedBlock {
  readonly block: Block;
  readonly start: number;
  readonly end: number;
}
