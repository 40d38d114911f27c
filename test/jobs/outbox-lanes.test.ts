/**
 * The outbox's lanes (src/jobs/outbox.ts, as src/serve.ts starts them): the search index's
 * lane and the lane of every other topic run apart, so an item waiting on the embedding model
 * holds back no webhook or event; each lane takes only its own topics.
 */
import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { startOutboxLanes, startOutboxPump, type OutboxRow } from '../../src/jobs/outbox.js';
import { emit } from '../../src/domain/changes/outbox.js';
import { useTestServer } from '../support/server.js';

const log = pino({ level: 'silent' });
const SUBJECT = '00000000-0000-4000-8000-000000000001';

/** A consumer that records its rows and, while `gate` is unresolved, waits on it. */
function consumer(seen: string[], gate?: Promise<void>) {
  return async (rows: OutboxRow[]) => {
    await gate;
    seen.push(...rows.map((r) => `${r.topic}:${String(r.payload.n)}`));
  };
}

describe('the outbox lanes', () => {
  const { server } = useTestServer();
  const remaining = async () => ((await server.db('outbox').orderBy('id').select('topic')) as { topic: string }[]).map((r) => r.topic);

  it('deliver events while the search lane waits, and each lane takes only its topics', async () => {
    await server.db('outbox').delete();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const indexed: string[] = [];
    const delivered: string[] = [];
    await server.db.transaction(async (trx) => {
      await emit(trx, 'item', SUBJECT, { n: 1 });
      await emit(trx, 'event', SUBJECT, { n: 2 });
      await emit(trx, 'item.enrich', SUBJECT, { n: 3 });
    });
    const lanes = startOutboxLanes(server.db, [{ item: consumer(indexed, gate) }, { event: consumer(delivered), 'item.enrich': consumer(delivered) }], log, 20);
    try {
      // The item waits at the gate; the event and the enrichment go through meanwhile.
      for (let waited = 0; delivered.length < 2 && waited < 5000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      expect(delivered).toEqual(['event:2', 'item.enrich:3']);
      expect(indexed).toEqual([]);
      expect(await remaining()).toEqual(['item']);
      open();
      await lanes.drain();
      expect(indexed).toEqual(['item:1']);
      expect(await remaining()).toEqual([]);
    } finally {
      open();
      await lanes.stop();
    }
  });

  it('leave a topic no lane takes where it is; one pump without lanes drops it, as before', async () => {
    await server.db('outbox').delete();
    await server.db.transaction(async (trx) => {
      await emit(trx, 'item', SUBJECT, { n: 1 });
      await emit(trx, 'event', SUBJECT, { n: 2 });
    });
    const delivered: string[] = [];
    const lanes = startOutboxLanes(server.db, [{ event: consumer(delivered) }], log, 3_600_000);
    await lanes.drain();
    await lanes.stop();
    expect(delivered).toEqual(['event:2']);
    expect(await remaining()).toEqual(['item']);

    const pump = startOutboxPump(server.db, { event: consumer(delivered) }, log, 3_600_000);
    await pump.drain();
    await pump.stop();
    expect(await remaining()).toEqual([]);
  });
});
