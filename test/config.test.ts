/** The configuration: one schema, defaults, and refusals that name the variable to fix. */
import { describe, it, expect } from '@jest/globals';
import { defaultBaseUrl, loadConfig, type SearchConfig } from '../src/core/config.js';

describe('loadConfig', () => {
  describe('BASE_URL when it is not set', () => {
    it.each([
      ['127.0.0.1', 8080, 'http://127.0.0.1:8080'],
      ['localhost', 3000, 'http://localhost:3000'],
      ['0.0.0.0', 8080, 'http://localhost:8080'],
      ['::', 8080, 'http://localhost:8080'],
      ['::1', 8080, 'http://[::1]:8080'],
      ['lists.example.org', 80, 'http://lists.example.org:80'],
    ])('is the address the server listens on: HOST %s, PORT %d -> %s', (host, port, expected) => {
      expect(defaultBaseUrl(host, port)).toBe(expected);
    });

    it('follows HOST and PORT, so the printed address is the one sign-in accepts', () => {
      expect(loadConfig({ PORT: '9001' }).baseUrl).toBe('http://127.0.0.1:9001');
      expect(loadConfig({ HOST: '0.0.0.0', PORT: '9001', BASE_URL: 'https://lists.example.org/' }).baseUrl).toBe('https://lists.example.org');
    });
  });

  describe('search settings', () => {
    const cases: [string, Record<string, string>, Partial<SearchConfig>][] = [
      ['defaults to Postgres and the local model: nothing to reach over a network', {}, { backend: 'postgres', embeddings: { kind: 'local' } }],
      [
        'takes Meilisearch with its address and key',
        { SEARCH_BACKEND: 'meilisearch', MEILI_URL: 'http://127.0.0.1:7700', MEILI_API_KEY: 'k' },
        { backend: 'meilisearch', meiliUrl: 'http://127.0.0.1:7700', meiliApiKey: 'k' },
      ],
      [
        'takes an OpenAI-compatible embedder',
        {
          EMBEDDINGS: 'openai',
          EMBEDDINGS_URL: 'http://127.0.0.1:11434/v1',
          EMBEDDINGS_MODEL: 'nomic-embed-text',
          EMBEDDINGS_API_KEY: 's',
          EMBEDDINGS_DIMENSIONS: '768',
        },
        { embeddings: { kind: 'openai', url: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text', apiKey: 's', dimensions: 768 } },
      ],
      [
        'reads EMBEDDINGS_URL alone as the OpenAI-compatible embedder',
        { EMBEDDINGS_URL: 'http://e/v1', EMBEDDINGS_MODEL: 'm' },
        { embeddings: { kind: 'openai', url: 'http://e/v1', model: 'm' } },
      ],
      ['turns embeddings off', { EMBEDDINGS: 'none' }, { embeddings: { kind: 'none' } }],
    ];
    it.each(cases)('%s', (_name, env, expected) => {
      expect(loadConfig(env).search).toMatchObject(expected);
    });

    const refusals: [Record<string, string>, RegExp][] = [
      [{ SEARCH_BACKEND: 'elastic' }, /SEARCH_BACKEND must be equal to one of the allowed values/],
      [{ SEARCH_BACKEND: 'meilisearch' }, /SEARCH_BACKEND=meilisearch needs MEILI_URL/],
      [{ EMBEDDINGS: 'openai', EMBEDDINGS_URL: 'http://e/v1' }, /EMBEDDINGS=openai needs EMBEDDINGS_URL .* and EMBEDDINGS_MODEL/],
      [{ EMBEDDINGS: 'bert' }, /EMBEDDINGS must be equal to one of the allowed values/],
      [{ EMBEDDINGS_DIMENSIONS: 'many' }, /EMBEDDINGS_DIMENSIONS must be integer/],
    ];
    it.each(refusals)('refuses %j', (env, message) => {
      expect(() => loadConfig(env)).toThrow(message);
    });
  });
});
