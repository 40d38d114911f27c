/**
 * Who the server is and what it offers, for both eras: the protocol server's capabilities at
 * initialize (up to 2025-11-25), and `server/discover` with its capabilities, extensions and
 * caching hints (2026-07-28), where every result also names the server in its `_meta`.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/discover
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching
 */
import * as z from 'zod';
import { EVENTS_CAPABILITY, EVENTS_EXTENSION } from './events.js';
import { method, type McpMethod } from './methods.js';
import { TASKS_EXTENSION } from './tasks.js';
import { ALL_VERSIONS } from './versions.js';

export const SERVER_INFO = { name: 'listkeeper', version: '0.1.0' };

/** The server's instructions to the model (at initialize, and in `server/discover`). */
export const INSTRUCTIONS =
  "listkeeper keeps the person's lists and items. Start with get_context for an overview. " +
  'Tools that take objects or arrays also accept them as JSON strings.';

const CORE_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  prompts: { listChanged: false },
  completions: {},
};

/** The capabilities answered to `initialize` (2025-11-25 and before have no `extensions`). */
export const LEGACY_CAPABILITIES = { ...CORE_CAPABILITIES, experimental: { events: EVENTS_CAPABILITY } };

/** The capabilities `server/discover` names: the core ones and the extensions offered. */
export const MODERN_CAPABILITIES = {
  ...CORE_CAPABILITIES,
  extensions: { [EVENTS_EXTENSION]: EVENTS_CAPABILITY, [TASKS_EXTENSION]: {} },
};

/**
 * Caching hints of the results 2026-07-28 makes cacheable. The prompt and template lists are
 * the same for everyone and change only with a new release: public, five minutes. The tool list
 * follows the connection's grant: private, five minutes. The resources are the person's lists:
 * private, and stale at once (a list changes with any write).
 */
const CACHE_HINTS: Record<string, { ttlMs: number; cacheScope: 'public' | 'private' }> = {
  'server/discover': { ttlMs: 300_000, cacheScope: 'public' },
  'tools/list': { ttlMs: 300_000, cacheScope: 'private' },
  'prompts/list': { ttlMs: 300_000, cacheScope: 'public' },
  'resources/templates/list': { ttlMs: 300_000, cacheScope: 'public' },
  'resources/list': { ttlMs: 0, cacheScope: 'private' },
  'resources/read': { ttlMs: 0, cacheScope: 'private' },
};

/** The caching hints of a method's complete result, if the revision makes it cacheable. */
export function cacheHints(methodName: string): { ttlMs: number; cacheScope: 'public' | 'private' } | undefined {
  return CACHE_HINTS[methodName];
}

const DiscoverRequest = z.object({ method: z.literal('server/discover'), params: z.looseObject({}).optional() });

/** `server/discover`: the revisions served, the capabilities and the instructions. */
export const discoverMethod: McpMethod = method(DiscoverRequest, async () => ({
  supportedVersions: [...ALL_VERSIONS],
  capabilities: MODERN_CAPABILITIES,
  instructions: INSTRUCTIONS,
}));
