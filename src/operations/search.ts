import type { Handler, OperationContext, OpOutput } from '../core/context.js';
import type { SearchHit, SearchQuery } from '../core/search-index.js';
import { listsById, loadAccessible } from '../domain/items/items.js';
import { searchDuration } from '../core/metrics.js';
import { itemUrls } from '../domain/items/urls.js';

/** Hits asked of the index beyond `limit`, so entries dropped by the access check below do not shorten the page. */
const SLACK = 10;

/**
 * GET /search: hybrid semantic and keyword search, best passage per item, each with its list. The index answers
 * which items match; whether the caller may see them is decided here, on the live items table (own, or shared with
 * them; never trashed), so an index entry that is stale for a moment can neither leak an item nor show a deleted one.
 * @see openapi/openapi.yaml search
 */
export const search: Handler<'search'> = async (ctx, input) => {
  const { db, principal, config } = ctx;
  const limit = input.limit ?? 10;
  const after = input.after ? new Date(input.after) : undefined;
  const before = input.before ? new Date(input.before) : undefined;
  const hits = await searchIndex(ctx, {
    readerId: principal.userId,
    text: input.q,
    limit: limit + SLACK,
    ...(after ? { after } : {}),
    ...(before ? { before } : {}),
  });
  const reachable = await loadAccessible(
    db,
    principal.userId,
    hits.map((h) => h.itemId),
  );
  const lists = await listsById(
    db,
    [...reachable.values()].map((r) => r.row.list_id),
  );
  const results: OpOutput<'search'>['results'] = [];
  for (const hit of hits) {
    const row = reachable.get(hit.itemId)?.row;
    // The index filters by creation time too; checking the row keeps the contract even for an entry not yet updated.
    if (!row || (after && row.created_at < after) || (before && row.created_at >= before)) continue;
    const list = lists.get(row.list_id)!;
    results.push({
      itemId: row.id,
      title: row.title,
      passage: hit.passage,
      score: Math.round(hit.score * 1000) / 1000,
      listId: list.id,
      listName: list.name,
      listIcon: list.icon,
      createdAt: row.created_at.toISOString(),
      webUrl: itemUrls(config, row.id).webUrl,
    });
    if (results.length === limit) break;
  }
  return { count: results.length, results };
};

/**
 * Asks the index; when a hybrid search fails (an embeddings server that is down, a model that did not load), the
 * same search by keywords alone still answers, as it does when no embedder is configured (EMBEDDINGS=none).
 */
async function searchIndex(ctx: OperationContext, query: SearchQuery): Promise<SearchHit[]> {
  const index = ctx.services.search;
  if (!index) throw new Error('This process has no search index (services.search is not set).');
  const timer = searchDuration.startTimer({ mode: query.mode ?? 'hybrid' });
  try {
    return await index.search(query);
  } catch (err) {
    ctx.log.warn({ err, backend: index.name }, 'hybrid search failed; answering by keywords only');
    try {
      return await index.search({ ...query, mode: 'keyword' });
    } catch {
      throw err;
    }
  } finally {
    timer();
  }
}
