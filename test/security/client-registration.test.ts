/** Dynamic client registration is bounded: metadata size, and registrations per address and day. */
import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { register } from '../support/oauth.js';

describe('client registration limits', () => {
  const { server } = useTestServer({ env: { CLIENT_REGISTRATIONS_PER_DAY: '3' }, accounts: [] });

  const metadata = (name: string) => ({ client_name: name, redirect_uris: ['http://127.0.0.1:53682/callback'], token_endpoint_auth_method: 'none' });

  it('refuses client metadata over 8 KiB with invalid_client_metadata', async () => {
    const res = await register(server.baseUrl, { ...metadata('Big'), client_uri: `https://example.org/${'x'.repeat(9000)}` });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
  });

  it('takes 3 registrations from one address a day, then answers 429 with Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await register(server.baseUrl, metadata(`App ${i}`))).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
  });
});
