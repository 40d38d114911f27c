/** One item as the search index sees it: enough to filter by reader and time, and the text to match. */
export interface SearchDoc {
  itemId: string;
  ownerId: string;
  /** Owner plus everyone the item's list is shared with. */
  readerIds: string[];
  listId: string;
  listName: string;
  title: string | null;
  body: string | null;
  /** Row values of list items (e.g. "author: Frank Herbert; year: 1965"), flattened to text. */
  values?: string;
  createdAt: Date;
}

/** One matching item: its best passage and a score where higher is better. */
export interface SearchHit {
  itemId: string;
  score: number;
  passage: string;
}

/** A search as asked by one reader; `after` is inclusive, `before` exclusive. */
export interface SearchQuery {
  readerId: string;
  text: string;
  limit: number;
  after?: Date;
  before?: Date;
  mode?: 'hybrid' | 'keyword' | 'semantic';
}

/** A place items are indexed and searched; every search is confined to what `readerId` may read. */
export interface SearchIndex {
  readonly name: string;
  /**
   * Indexes `docs`, replacing what the index holds for them. `reuseVectors`: a passage whose
   * text is unchanged keeps its stored vector instead of being embedded again (the outbox
   * path; a rebuild, which may run with another model, embeds everything). Both indexes
   * honour it.
   */
  upsert(docs: SearchDoc[], options?: { reuseVectors?: boolean }): Promise<void>;
  remove(itemIds: string[]): Promise<void>;
  search(q: SearchQuery): Promise<SearchHit[]>;
  clear?(): Promise<void>;
  /**
   * While a rebuild after a model change is unfinished, the previous model (null: none any more): searches embed
   * the query with it too and compare it with the passages it embedded (src/search/query-models.ts).
   */
  setPrevious?(previous: PreviousModel | null): void | Promise<void>;
}

/** The model that embedded the passages a rebuild after a model change has not reached yet. */
export interface PreviousModel {
  name: string;
  /** Null when it cannot run in this process: its passages then have no comparable vector. */
  embedder: Embedder | null;
}

/** Turns texts into unit-length vectors of a fixed size. */
export interface Embedder {
  readonly name: string;
  readonly dimensions: number;
  embed(texts: string[]): Promise<Float32Array[]>;
}
