/**
 * get_import: an import's state, progress and outcome per list, to its owner only.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { startTestJobs } from '../support/jobs.js';
import { importEnded } from '../support/import-sample.js';
import type { Jobs } from '../../src/jobs/queue.js';

describe('get_import', () => {
  const { server, ada, account } = useTestServer({
    accounts: ['Ada', 'Bea'],
    beforeClose: async () => {
      await jobs.stop();
    },
  });
  let jobs: Jobs;
  beforeAll(async () => {
    jobs = await startTestJobs(server);
  });

  it('follows an import from queued to its end, with what it wrote', async () => {
    const started = await ada.sdk.POST('/imports', { body: { format: 'csv', csv: 'Title,Rating\nDune,5\nHeat,4\n', listName: 'Films' } });
    expect(started.data).toEqual({
      id: expect.any(String),
      format: 'csv',
      status: 'queued',
      progress: { done: 0, total: 2 },
      lists: [{ name: 'Films', listId: null, status: 'pending', created: 0, updated: 0, error: null }],
      warnings: [],
      createdAt: expect.any(String),
      startedAt: null,
      finishedAt: null,
    });
    const ended = await importEnded(ada, started.data!.id);
    expect(ended).toEqual({
      ...started.data,
      status: 'succeeded',
      progress: { done: 2, total: 2 },
      lists: [{ name: 'Films', listId: expect.any(String), status: 'imported', created: 2, updated: 0, error: null }],
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
    });
    // The plan is dropped once the import has ended.
    expect((await server.db('imports').where({ id: ended.id }).first()).plan).toBeNull();
  });

  it("answers 404 for another person's import and 400 for an id that is not one", async () => {
    const started = await ada.sdk.POST('/imports', { body: { format: 'csv', csv: 'Title\nA\n', listName: 'Letters' } });
    const bea = account('Bea');
    const theirs = await bea.sdk.GET('/imports/{id}', { params: { path: { id: started.data!.id } } });
    expect(theirs.response.status).toBe(404);
    expect(theirs.error).toMatchObject({ code: 'notFound' });
    const bad = await bea.sdk.GET('/imports/{id}', { params: { path: { id: 'nope' } } });
    expect(bad.response.status).toBe(400);
    await importEnded(ada, started.data!.id);
  });
});
