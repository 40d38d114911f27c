/**
 * The container image and the compose stack, checked by what runs here (no docker engine on
 * these machines): every setting the compose file gives listkeeper is one the service reads,
 * the image runs as a non-root user with a health check on /readyz, and what it starts is in
 * the packed package.
 */
import { describe, it, expect } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { settingNames } from '../../src/core/config.js';

const root = path.resolve(import.meta.dirname ?? '.', '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

interface Service {
  image?: string;
  build?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }> | string[];
  volumes?: string[];
}

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, Service> };
  const listkeepers = Object.entries(compose.services).filter(([, s]) => s.build === '.');

  it('runs two listkeeper processes from the same image, behind one proxy, on Postgres, Meilisearch and S3', () => {
    expect(listkeepers.map(([name]) => name)).toEqual(['listkeeper-1', 'listkeeper-2']);
    expect(compose.services.postgres?.image).toMatch(/^postgres:1[5-9]/);
    expect(compose.services.meilisearch?.image).toMatch(/^getmeili\/meilisearch:/);
    expect(compose.services.minio?.image).toMatch(/^minio\/minio/);
    expect(compose.services.caddy?.image).toMatch(/^caddy:/);
    for (const [, service] of listkeepers) {
      const env = service.environment ?? {};
      expect(env.DATABASE_URL).toContain('@postgres:5432/');
      expect(env.SEARCH_BACKEND).toBe('meilisearch');
      expect(env.S3_ENDPOINT).toBe('http://minio:9000');
    }
  });

  it('gives listkeeper only settings the service reads', () => {
    const known = new Set(settingNames());
    for (const [, service] of listkeepers) {
      const unknown = Object.keys(service.environment ?? {}).filter((name) => !known.has(name));
      expect(unknown).toEqual([]);
    }
  });

  it('sends the proxy to both processes, health-checked on /readyz', () => {
    const caddyfile = read('deploy/Caddyfile');
    expect(caddyfile).toMatch(/reverse_proxy listkeeper-1:8080 listkeeper-2:8080/);
    expect(caddyfile).toMatch(/health_uri \/readyz/);
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const pkg = JSON.parse(read('package.json')) as { files: string[] };

  it('runs as a non-root user, health-checked on /readyz, from a production install of the packed package', () => {
    const stages = dockerfile.split(/^FROM /m).slice(1);
    const runtime = stages[stages.length - 1]!;
    expect(runtime).toMatch(/^USER listkeeper$/m);
    expect(runtime).toMatch(/HEALTHCHECK[\s\S]*\/readyz/);
    expect(dockerfile).toMatch(/npm pack/);
    expect(dockerfile).toMatch(/npm install --omit=dev/);
    expect(runtime).toMatch(/CMD \["node", "dist\/src\/main.js"\]/);
    expect(pkg.files).toContain('dist/src');
  });

  it('uses a Node major the package supports', () => {
    const major = Number(/FROM node:(\d+)/.exec(dockerfile)?.[1]);
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    expect(major).toBeGreaterThanOrEqual(Number(/>=(\d+)/.exec(engines)?.[1]));
  });
});
