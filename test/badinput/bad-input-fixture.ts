/**
 * The bad-input suites' setup: a test server with Ada, an MCP client, a list and an item of
 * hers, and `send` / `refused` (a call that must be refused and change none of her rows).
 */
import { beforeAll, expect } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { standIn, useTestServer } from '../support/server.js';
import { snapshotOf } from '../support/snapshot.js';

const ERROR_CODES = ['invalid', 'unauthorized', 'notFound', 'methodNotAllowed', 'rateLimited', 'toolError'];

export interface Sent {
  method: string;
  path: string;
  body?: string;
  contentType?: string;
}
export interface Answer {
  status: number;
  json: Record<string, unknown> | null;
  contentType: string | null;
}

/** Call inside a `describe`: registers the hooks and returns the helpers. */
export function useBadInput() {
  const { server, ada } = useTestServer();
  let client: Client | undefined;
  const mcp = standIn(() => client, 'the MCP client');
  const ids = {} as { item: string; list: string; tasks: string };

  beforeAll(async () => {
    client = await server.mcp(ada);
    const list = await send({ method: 'POST', path: '/lists', body: JSON.stringify({ name: 'Books', properties: [{ name: 'Author', type: 'text' }] }) });
    const items = await send({ method: 'POST', path: '/items', body: JSON.stringify({ items: [{ title: 'Existing', body: 'Kept as it is.' }] }) });
    Object.assign(ids, { list: String(list.json!.id), item: String((items.json!.items as { id: string }[])[0]!.id), tasks: String(items.json!.listId) });
  });

  async function send(req: Sent): Promise<Answer> {
    const res = await fetch(`${server.baseUrl}/api/v1${req.path}`, {
      method: req.method,
      headers: { Authorization: `Bearer ${ada.key}`, ...(req.body !== undefined ? { 'Content-Type': req.contentType ?? 'application/json' } : {}) },
      ...(req.body !== undefined ? { body: req.body } : {}),
    });
    const text = await res.text();
    let json: Record<string, unknown> | null = null;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = null;
    }
    return { status: res.status, json, contentType: res.headers.get('content-type') };
  }

  /** Sends a call that must be refused: 4xx, `{error, code}`, and not one row of Ada's changed. */
  async function refused(req: Sent, expected: { status?: number; code?: string; field?: string; message?: RegExp } = {}): Promise<Answer> {
    const before = await snapshotOf(server, ada.userId);
    const answer = await send(req);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.json).toEqual(expect.objectContaining({ error: expect.any(String), code: expect.any(String) }));
    expect(ERROR_CODES).toContain(answer.json!.code);
    expect(String(answer.json!.error).length).toBeLessThan(600);
    if (expected.status) expect(answer.status).toBe(expected.status);
    if (expected.code) expect(answer.json!.code).toBe(expected.code);
    if (expected.field) expect(answer.json!.field).toBe(expected.field);
    if (expected.message) expect(answer.json!.error).toMatch(expected.message);
    expect(await snapshotOf(server, ada.userId)).toEqual(before);
    return answer;
  }

  return { server, ada, mcp, ids, send, refused };
}
