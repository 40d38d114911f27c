/** DELETE /calendar-feed: the address answers 404 from then on; revoking nothing says so. */
import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';

describe('revoke_calendar_feed', () => {
  const { ada } = useTestServer();

  it('retires the address at once and reports whether there was one', async () => {
    expect((await ada.sdk.DELETE('/calendar-feed', {})).data).toEqual({ revoked: false });
    const { url } = (await ada.sdk.POST('/calendar-feed', {})).data!;
    expect((await fetch(url)).status).toBe(200);
    expect((await ada.sdk.DELETE('/calendar-feed', {})).data).toEqual({ revoked: true });
    expect((await fetch(url)).status).toBe(404);
    expect((await ada.sdk.GET('/calendar-feed', {})).data).toMatchObject({ active: false });
  });
});
