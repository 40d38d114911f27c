import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { call } from '../../src/operations/dispatch.js';

describe('create_api_key', () => {
  const { server, ada } = useTestServer();

  it('mints a key that works, and the key the person had stops working', async () => {
    const old = await fetch(`${server.baseUrl}/api/v1/lists`, { headers: { Authorization: `Bearer ${ada.key}` } });
    expect(old.status).toBe(200);
    const { key } = await call(server.personContext(ada), 'create_api_key', {});
    expect(key).toMatch(/^lk_[A-Za-z0-9]{45}$/);
    expect((await fetch(`${server.baseUrl}/api/v1/lists`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/api/v1/lists`, { headers: { Authorization: `Bearer ${ada.key}` } })).status).toBe(401);
  });
});
