/**
 * @listkeeper/sdk: a typed client for the listkeeper REST API, generated from its OpenAPI
 * document. Path-style calls (`lk.GET('/lists')`) and resource methods (`lk.lists.list()`)
 * return `{ data, error, response }`; with `throwOnError: true` resource methods return the
 * data and throw a `ListkeeperError` subclass. Retries with backoff, timeouts, paging
 * iterators, webhook verification and values by name are built in.
 */
import type { components, operations, paths, webhooks } from './generated/api.js';

export { createClient, type ListkeeperClient, type ListkeeperOptions, type Resources, type WebhookHelpers } from './client.js';
export {
  ConnectionError,
  InvalidError,
  ListkeeperError,
  MethodNotAllowedError,
  NotFoundError,
  RateLimitedError,
  ToolError,
  UnauthorizedError,
  InsufficientScopeError,
  type ErrorCode,
} from './errors.js';
export type { TokenSource } from './transport.js';
export type { ErrorBody, Input, Output, RequestOptions, Result } from './types.js';
export { isVerification, verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookVerification } from './webhooks.js';
export { mapping, valueNames, type Value, type ValueNames } from './values.js';
export type { components, operations, paths, webhooks };
export type Schemas = components['schemas'];
