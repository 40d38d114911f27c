/**
 * @listkeeper/sdk: a typed client for the listkeeper REST API. Paths, parameters and
 * bodies are typed from the service's OpenAPI document; calls never throw on an HTTP error:
 * they return `{ data, error, response }`.
 */
import createFetchClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths, components, operations } from './generated/api.js';

export type { paths, components, operations };
export type Schemas = components['schemas'];
export type ListkeeperClient = Client<paths>;

export interface ListkeeperOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** The service's address, e.g. `http://localhost:8080` (the `/api/v1` root is added). */
  baseUrl: string;
  /** An API key (`lk_…`) or an OAuth access token. */
  token: string;
}

/** Creates a client. Array query parameters are sent comma-separated, as the API expects. */
export function createClient(options: ListkeeperOptions): ListkeeperClient {
  const { baseUrl, token, headers, ...rest } = options;
  return createFetchClient<paths>({
    ...rest,
    baseUrl: `${baseUrl.replace(/\/+$/, '')}/api/v1`,
    headers: { ...(headers as Record<string, string> | undefined), Authorization: `Bearer ${token}` },
    querySerializer: { array: { style: 'form', explode: false } },
  });
}
