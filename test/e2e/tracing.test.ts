/**
 * OpenTelemetry traces of the built server: with an OTLP endpoint set, a REST call is exported
 * as a server span named by its operation, with the Postgres queries it ran beneath it; probes
 * and the background pollers' queries are not traced. The collector here is a small OTLP/HTTP JSON receiver.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createUser } from '../../src/domain/accounts/accounts.js';
import { createApiKey } from '../../src/domain/accounts/api-keys.js';
import { startServiceProcess, type ServiceProcess } from '../support/cluster.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { waitFor } from '../support/jobs.js';

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

describe('tracing', () => {
  let database: TestDatabase;
  let service: ServiceProcess;
  let collector: http.Server;
  const spans: Span[] = [];
  const attribute = (span: Span, key: string) => span.attributes.find((a) => a.key === key)?.value;

  beforeAll(async () => {
    collector = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        if (req.url === '/v1/traces') {
          const exported = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };
          for (const resource of exported.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    collector.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => collector.once('listening', resolve));
    database = await createTestDatabase();
    service = await startServiceProcess('traced', {
      DATABASE_URL: database.url,
      EMBEDDINGS: 'none',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_SERVICE_NAME: 'listkeeper-test',
    });
  }, 120_000);

  afterAll(async () => {
    await service?.stop('SIGKILL');
    collector?.closeAllConnections();
    await new Promise<void>((resolve) => (collector ? collector.close(() => resolve()) : resolve()));
    await database?.drop();
  });

  it('exports a span for a REST call, named by its operation, with its Postgres queries beneath it', async () => {
    const user = await createUser(database.knex, { email: 'traced@example.com', name: 'Traced', timezone: 'UTC' });
    const key = await createApiKey(database.knex, user.id);
    const answer = await fetch(`${service.url}/api/v1/lists`, { headers: { authorization: `Bearer ${key}` } });
    expect(answer.status).toBe(200);
    await fetch(`${service.url}/readyz`);
    const server = await waitFor(async () => spans.find((s) => s.name === 'GET list_lists'), 20_000).catch((err: Error) => {
      throw new Error(`${err.message}; spans seen: ${[...new Set(spans.map((s) => s.name))].join(', ')}`);
    });
    expect(server.kind).toBe(2); // SERVER
    expect(attribute(server, 'listkeeper.transport')?.stringValue).toBe('rest');
    expect(attribute(server, 'http.response.status_code') ?? attribute(server, 'http.status_code')).toBeDefined();
    const queries = await waitFor(async () => {
      const beneath = spans.filter(
        (s) =>
          s.traceId === server.traceId &&
          s.spanId !== server.spanId &&
          (attribute(s, 'db.system') ?? attribute(s, 'db.system.name'))?.stringValue === 'postgresql',
      );
      return beneath.length > 0 ? beneath : undefined;
    }, 20_000).catch((err: Error) => {
      throw new Error(
        `${err.message}; spans of the trace: ${spans
          .filter((s) => s.traceId === server.traceId)
          .map((s) => s.name)
          .join(', ')}`,
      );
    });
    expect(queries.length).toBeGreaterThan(0);
    // The pollers' queries (job queue, outbox, feed sequencer: several a second) are not traced on their own.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(spans.filter((s) => !s.parentSpanId).map((s) => s.name)).toEqual(spans.filter((s) => s.kind === 2 && !s.parentSpanId).map((s) => s.name));
    expect(spans.some((s) => s.name.includes('/readyz') || s.name.includes('readyz'))).toBe(false);
  }, 60_000);
});
