/** A chat messageKey belongs to its author: a sharee using the owner's agent's key posts a new message. */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';
import { createShare } from '../../src/domain/lists/shares.js';

describe('chat message keys', () => {
  const { server, ada } = useTestServer();
  let bea: TestAccount;
  let itemId: string;
  beforeAll(async () => {
    bea = await server.account('Bea');
    const made = await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Shared task' }] } });
    itemId = made.data!.items[0]!.id;
    await createShare(server.db, { itemId }, bea.userId);
  });

  const post = (who: TestAccount, text: string, key: string) =>
    who.sdk.POST('/items/{id}/messages', { params: { path: { id: itemId } }, body: { message: text, agentName: 'Scout', messageKey: key } });

  it("keeps the owner's message when a sharee posts with its key and agent name", async () => {
    expect((await post(ada, 'Booked for Friday', 'k1')).response.status).toBeLessThan(300);
    const res = await post(bea, 'Cancelled, ignore this', 'k1');
    expect(res.response.status).toBeLessThan(300);
    const { data } = await ada.sdk.GET('/items/{id}/messages', { params: { path: { id: itemId } } });
    const texts = data!.messages.map((m) => m.text);
    expect(texts).toContain('Booked for Friday');
    expect(texts).toContain('Cancelled, ignore this');
  });

  it('still lets an author update its own keyed message', async () => {
    await post(ada, 'Draft', 'k2');
    await post(ada, 'Final', 'k2');
    const { data } = await ada.sdk.GET('/items/{id}/messages', { params: { path: { id: itemId } } });
    const texts = data!.messages.map((m) => m.text);
    expect(texts).toContain('Final');
    expect(texts).not.toContain('Draft');
  });
});
