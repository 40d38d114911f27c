/**
 * Stopping the job queue: a job in hand is told (its `signal` aborts) and gets the graceful stop's
 * time to reach a point its retry can go on from, so a long import does not hold the shutdown.
 */
import { describe, it, expect } from '@jest/globals';
import { pino } from 'pino';
import { useTestServer } from '../support/server.js';
import { startJobs } from '../../src/jobs/queue.js';

describe('the job queue when its process stops', () => {
  const { server } = useTestServer();

  it('aborts the signal of the jobs in hand, and waits for them to return', async () => {
    let began!: () => void;
    const running = new Promise<void>((resolve) => (began = resolve));
    const seen: string[] = [];
    const jobs = await startJobs(
      server.dbUrl,
      [
        {
          name: 'test.waits-for-stop',
          async handler(_data, job) {
            began();
            // Returns only when told to stop: without the signal, stop() would wait out its timeout and this would not run.
            await new Promise<void>((resolve) => job.signal?.addEventListener('abort', () => resolve(), { once: true }));
            seen.push(job.signal?.aborted ? 'aborted' : 'not aborted');
          },
        },
      ],
      pino({ level: 'silent' }),
    );
    await jobs.send('test.waits-for-stop', {});
    await running;
    await jobs.stop();
    expect(seen).toEqual(['aborted']);
  }, 30_000);
});
