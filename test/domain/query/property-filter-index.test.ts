/**
 * The GIN index on items' values (migration 20261125000900) serves an equality filter on a
 * select property: the query query_items runs for `where: State eq Read` is planned on
 * items_values_idx, and counts the same items as the filter on the value alone.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer } from '../../support/server.js';
import { create_list } from '../../../src/operations/create_list.js';
import { create_items } from '../../../src/operations/create_items.js';
import { update_list } from '../../../src/operations/update_list.js';
import { query_items } from '../../../src/operations/query_items.js';
import { applyWhere } from '../../../src/domain/query/where.js';
import type { Property } from '../../../src/domain/lists/properties.js';

describe('the index on property values', () => {
  const { server, ada } = useTestServer({});
  let listId: string;
  let properties: Property[];
  beforeAll(async () => {
    listId = (await create_list(server.context(ada), { name: 'Shelf', template: 'notes' } as never)).id;
    await update_list(server.context(ada), { id: listId, addProperties: [{ name: 'State', type: 'select', options: ['To read', 'Read'] }] } as never);
    // 1,500 items, 1 in 50 of them Read: a selective filter, as on a long list.
    for (let batch = 0; batch < 3; batch++) {
      const items = Array.from({ length: 500 }, (_, i) => ({ title: `book ${batch}-${i}`, values: { State: i % 50 === 0 ? 'Read' : 'To read' } }));
      await create_items(server.context(ada), { listId, items } as never);
    }
    await server.db.raw('ANALYZE items');
    properties = ((await server.db('lists').where({ id: listId }).first('properties')) as { properties: Property[] }).properties;
  });

  it('serves an equality filter on a select property', async () => {
    const q = server.db('items').where({ list_id: listId }).whereNull('deleted_at').whereNull('archived_at');
    applyWhere(q, [{ property: 'State', op: 'eq', value: 'Read' }], properties, { status: false, due: false });
    const { sql, bindings } = q.count({ n: '*' }).toSQL();
    const plan = await server.db.transaction(async (trx) => {
      // The tables of a test database are small: without this, any plan is a sequential scan.
      await trx.raw('SET LOCAL enable_seqscan = off');
      const explained = await trx.raw(`EXPLAIN ${sql}`, bindings);
      return (explained.rows as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('items_values_idx');
  });

  it('counts exactly the items with the option', async () => {
    const counted = await query_items(server.context(ada), { listId, mode: 'count', where: [{ property: 'State', op: 'eq', value: 'Read' }] } as never);
    expect(counted.count).toBe(30);
    const others = await query_items(server.context(ada), { listId, mode: 'count', where: [{ property: 'State', op: 'ne', value: 'Read' }] } as never);
    expect(others.count).toBe(1470);
  });
});
