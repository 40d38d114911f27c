/**
 * The ceiling: a bare koa server that runs, for each benchmarked operation, the same single
 * SQL statement on the same data with `pg` — no validation, no auth, no serialisation of our
 * own. What listkeeper does on top of it is what the ratio measures.
 * Run: DATABASE_URL=… PORT=… npx tsx bench/ceiling.ts
 */
import Koa from 'koa';
import Router from '@koa/router';
import pg from 'pg';
import { SQL } from './ceiling-sql.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = new Koa();
const router = new Router();

async function readBody(ctx: Koa.Context): Promise<any> {
  let text = '';
  for await (const chunk of ctx.req) text += chunk;
  return JSON.parse(text);
}

router.get('/items/:id', async (ctx) => {
  ctx.body = (await pool.query(SQL.getItem, [ctx.params.id])).rows[0];
});
router.get('/items', async (ctx) => {
  const limit = Number(ctx.query.limit ?? 50);
  if (ctx.query.changedSince !== undefined && ctx.query.changedSince !== 'x') {
    ctx.body = (await pool.query(SQL.feedSince, [ctx.query.listId, ctx.query.changedSince, limit + 1])).rows;
    return;
  }
  if (ctx.query.changedSince !== undefined) {
    ctx.body = (await pool.query(SQL.feed, [ctx.query.listId, limit + 1])).rows;
    return;
  }
  ctx.body = (await pool.query(SQL.listItems, [ctx.query.listId, limit])).rows;
});
router.post('/items/query', async (ctx) => {
  const body = await readBody(ctx);
  if (body.mode === 'status') {
    ctx.body = (await pool.query(SQL.statusCount, [body.listId, body.status])).rows[0];
    return;
  }
  const sql = body.mode === 'sum' ? SQL.querySum : SQL.queryCount;
  ctx.body = (await pool.query(sql, [body.listId, body.optionId])).rows[0];
});
router.post('/items', async (ctx) => {
  const body = await readBody(ctx);
  const params: unknown[] = [body.ownerId, body.listId];
  const tuples = body.items.map((item: { title: string }, i: number) => {
    params.push(item.title);
    return `($1, $2, $${i + 3}, 'todo')`;
  });
  ctx.status = 201;
  ctx.body = (await pool.query(`INSERT INTO items (owner_id, list_id, title, task_status) VALUES ${tuples.join(', ')} RETURNING *`, params)).rows;
});
router.patch('/items', async (ctx) => {
  const body = await readBody(ctx);
  const ids = body.items.map((i: { itemId: string }) => i.itemId);
  const titles = body.items.map((i: { title: string }) => i.title);
  ctx.body = (
    await pool.query(
      `UPDATE items SET title = v.title, updated_at = now() FROM unnest($1::uuid[], $2::text[]) AS v(id, title) WHERE items.id = v.id RETURNING items.*`,
      [ids, titles],
    )
  ).rows;
});

router.get('/search', async (ctx) => {
  ctx.body = (await pool.query(SQL.search, [ctx.query.reader, ctx.query.q])).rows;
});
router.post('/items/:id/messages', async (ctx) => {
  const body = await readBody(ctx);
  ctx.status = 201;
  ctx.body = (await pool.query(SQL.chat, [ctx.params.id, body.message])).rows[0];
});

app.use(router.routes());
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`ceiling listening on ${(server.address() as { port: number }).port}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
