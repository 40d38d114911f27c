/** GET /calendar-feed: whether a feed address exists, since when, and its last read; never the address. */
import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';

describe('get_calendar_feed', () => {
  const { ada } = useTestServer();

  it('says there is none, then since when one exists and when a calendar last read it', async () => {
    expect((await ada.sdk.GET('/calendar-feed', {})).data).toEqual({ active: false, createdAt: null, lastFetchedAt: null });
    const { url, createdAt } = (await ada.sdk.POST('/calendar-feed', {})).data!;
    const made = (await ada.sdk.GET('/calendar-feed', {})).data!;
    expect(made).toEqual({ active: true, createdAt, lastFetchedAt: null });
    expect(JSON.stringify(made)).not.toContain('cal_');
    await fetch(url);
    const read = (await ada.sdk.GET('/calendar-feed', {})).data!;
    expect(read.lastFetchedAt).not.toBeNull();
    expect(Date.parse(read.lastFetchedAt!)).toBeGreaterThanOrEqual(Date.parse(createdAt));
  });
});
