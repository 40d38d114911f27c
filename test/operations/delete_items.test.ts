import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';
import { create_items } from '../../src/operations/create_items.js';
import { delete_items } from '../../src/operations/delete_items.js';
import { list_items } from '../../src/operations/list_items.js';

describe('delete_items', () => {
  const { server, ada } = useTestServer();
  let bea: TestAccount;
  beforeAll(async () => {
    bea = await server.account('Bea');
  });

  it("trashes own items, refuses others' and unknown ids, and the rest still delete", async () => {
    const mine = await create_items(server.context(ada), { items: [{ title: 'a' }, { title: 'b' }] });
    const theirs = await create_items(server.context(bea), { items: [{ title: 'secret' }] });
    const ids = [mine.items[0]!.id, theirs.items[0]!.id, 'not-a-uuid', mine.items[1]!.id];
    const result = await delete_items(server.context(ada), { itemIds: ids });
    expect(result.deleted).toBe(2);
    expect(result.refused).toEqual([theirs.items[0]!.id, 'not-a-uuid']);
    expect(result.items.map((t) => t.title).sort()).toEqual(['a', 'b']);
    expect(new Date(result.items[0]!.purgesAt!).getTime() - new Date(result.items[0]!.deletedAt).getTime()).toBe(30 * 24 * 3600 * 1000);
    const left = await list_items(server.context(ada), {});
    expect(left.items.map((i) => i.id)).not.toContain(mine.items[0]!.id);
    const beaStill = await list_items(server.context(bea), {});
    expect(beaStill.items.map((i) => i.title)).toContain('secret');
  });

  it('is idempotent: deleting again deletes nothing and reports the item again', async () => {
    const made = await create_items(server.context(ada), { items: [{ title: 'twice' }] });
    await delete_items(server.context(ada), { itemIds: [made.items[0]!.id] });
    const again = await delete_items(server.context(ada), { itemIds: [made.items[0]!.id] });
    expect(again).toMatchObject({ deleted: 0, refused: [] });
    expect(again.items.map((i) => i.id)).toEqual([made.items[0]!.id]);
  });

  it('answers 400 above 50 ids, through REST and MCP alike', async () => {
    const ids = Array.from({ length: 51 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const rest = await ada.sdk.DELETE('/items', { body: { itemIds: ids } });
    expect(rest.response.status).toBe(400);
    const mcp = await (await server.mcp(ada)).callTool({ name: 'delete_items', arguments: { itemIds: ids } });
    expect(mcp.isError).toBe(true);
  });
});
