/**
 * The ceiling's statements (bench/ceiling.ts), one per read it answers; `make bench` also runs
 * EXPLAIN ANALYZE on them for a read that grows slower with the data, since listkeeper runs
 * the same statement.
 */
export const SQL = {
  getItem: 'SELECT * FROM items WHERE id = $1 AND deleted_at IS NULL',
  listItems: `SELECT * FROM items WHERE list_id = $1 AND deleted_at IS NULL AND archived_at IS NULL AND is_template = false
       AND task_status IN ('todo', 'inProgress') ORDER BY due_at ASC NULLS LAST, created_at ASC, created_seq ASC LIMIT $2`,
  // With the containment test listkeeper adds for the index on values (src/domain/query/where.ts).
  queryCount: `SELECT count(*)::int AS n FROM items WHERE list_id = $1 AND deleted_at IS NULL AND archived_at IS NULL AND ("values"->>'p_state') = $2 AND "values" @> jsonb_build_object('p_state', $2::text)`,
  querySum: `SELECT count(*)::int AS n, coalesce(sum(("values"->>'p_pages')::numeric), 0)::float8 AS total FROM items WHERE list_id = $1 AND deleted_at IS NULL AND archived_at IS NULL AND ("values"->>'p_state') = $2 AND "values" @> jsonb_build_object('p_state', $2::text)`,
  feed: 'SELECT * FROM items WHERE list_id = $1 AND feed_seq > 0 ORDER BY feed_seq LIMIT $2',
  // The agents' mix (bench/agents.ts): a poll from the last change seen, a count by status, a
  // keyword search over the reader's passages, an agent's chat message.
  feedSince: 'SELECT * FROM items WHERE list_id = $1 AND feed_seq > $2 ORDER BY feed_seq LIMIT $3',
  statusCount: `SELECT count(*)::int AS n FROM items WHERE list_id = $1 AND deleted_at IS NULL AND archived_at IS NULL AND task_status = $2`,
  search: `SELECT p.item_id, p.passage_no, p.text, ts_rank(p.tsv, q) AS rank FROM search_passages p, websearch_to_tsquery('english', unaccent($2)) q
       WHERE p.reader_ids @> array[$1]::uuid[] AND p.tsv @@ q ORDER BY rank DESC LIMIT 20`,
  chat: `INSERT INTO chat_messages (item_id, session_id, author_kind, author_name, text) VALUES ($1, gen_random_uuid(), 'agent', 'Bench agent', $2)
       RETURNING id, session_id, created_at`,
} as const;
