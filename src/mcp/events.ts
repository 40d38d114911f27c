/**
 * MCP Events (draft extension, webhook delivery): `events/list`, `events/subscribe` and
 * `events/unsubscribe` as custom JSON-RPC methods on the MCP server. A subscription is one
 * per client (the token, `principal.tokenId`) and event, expires at `refreshBefore` unless the
 * client subscribes again, and is delivered by the same webhook machinery as REST
 * subscriptions (verification challenge first, Standard Webhooks signatures, retries).
 * Parameter and result names follow the MCP Events design sketch
 * (modelcontextprotocol/experimental-ext-triggers-events).
 * @see docs/events.md "MCP events"
 */
import * as z from 'zod';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { OperationContext } from '../core/context.js';
import { EVENT_CATALOG, EVENT_NAMES } from '../domain/changes/events.js';
import { CallbackUrlError, checkCallbackUrl } from '../core/outbound.js';
import { removeClientSubscription, secretProblem, SubscriptionLimitError, upsertClientSubscription } from '../domain/changes/subscriptions.js';
import { method, type McpMethod } from './methods.js';

/** Error codes of the MCP Events sketch (JSON-RPC server range). */
export const EVENTS_ERROR = { notFound: -32011, resourceExhausted: -32013, unsupported: -32014 } as const;

/**
 * What the server advertises: under `capabilities.extensions` by this identifier to a client of
 * 2026-07-28 (the extension's own name, SEP-3415), under `capabilities.experimental.events` at
 * initialize to the revisions before it, which have no `extensions`.
 */
export const EVENTS_EXTENSION = 'io.modelcontextprotocol/events';
export const EVENTS_CAPABILITY = { listChanged: false, delivery: ['webhook'] };

/** The shortest lifetime granted, however short the suggestion (protects against refresh storms). */
const MIN_TTL_MS = 60_000;

const ListRequest = z.object({ method: z.literal('events/list'), params: z.unknown().optional() });
const SubscribeRequest = z.object({ method: z.literal('events/subscribe'), params: z.unknown().optional() });
const UnsubscribeRequest = z.object({ method: z.literal('events/unsubscribe'), params: z.unknown().optional() });

const Arguments = z.object({}).strict().optional();
/** Item events take one argument: `includeItem`, the whole item in each event. */
const ItemArguments = z.object({ includeItem: z.boolean().optional() }).strict().optional();
const SubscribeParams = z.object({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).optional(),
  delivery: z.object({
    mode: z.literal('webhook').optional(),
    url: z.string().min(1).max(2000),
    secret: z.string().min(1).max(200),
  }),
  cursor: z.string().nullable().optional(),
  maxAgeMs: z.number().int().nonnegative().optional(),
  ttlMs: z.number().int().positive().nullable().optional(),
  _meta: z.unknown().optional(),
});
const UnsubscribeParams = z.object({
  name: z.string().min(1),
  arguments: Arguments,
  delivery: z.object({ mode: z.literal('webhook').optional(), url: z.string().min(1).max(2000) }).optional(),
  _meta: z.unknown().optional(),
});

function parse<T>(schema: z.ZodType<T>, params: unknown): T {
  const result = schema.safeParse(params ?? {});
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new McpError(ErrorCode.InvalidParams, `${issue.path.join('.') || 'params'}: ${issue.message}`);
  }
  return result.data;
}

function knownEvent(name: string): void {
  if (!EVENT_NAMES.includes(name))
    throw new McpError(EVENTS_ERROR.notFound, `Unknown event '${name}'; events/list has: ${EVENT_NAMES.join(', ')}.`, { kind: 'event' });
}

/** The three methods, over one caller's operation context. */
export function eventMethods(ctx: OperationContext): McpMethod[] {
  return [method(ListRequest, async () => ({ events: EVENT_CATALOG as unknown as Record<string, unknown>[] })), subscribe(ctx), unsubscribe(ctx)];
}

function subscribe(ctx: OperationContext): McpMethod {
  return method(SubscribeRequest, async (request) => {
    const params = parse(SubscribeParams, request.params);
    knownEvent(params.name);
    const { arguments: args } = parse(z.object({ arguments: params.name.startsWith('item.') ? ItemArguments : Arguments }), { arguments: params.arguments });
    try {
      await checkCallbackUrl(params.delivery.url, ctx.config.outboundAllowPrivate);
    } catch (err) {
      if (err instanceof CallbackUrlError) throw new McpError(ErrorCode.InvalidParams, `delivery.url: ${err.message}`);
      throw err;
    }
    const problem = secretProblem(params.delivery.secret);
    if (problem) throw new McpError(ErrorCode.InvalidParams, `delivery.${problem}`);
    // No expiry is never granted: a null or too long suggestion gets the server's longest lifetime.
    const maxMs = ctx.config.mcpEventsTtlSeconds * 1000;
    const ttl = Math.max(MIN_TTL_MS, Math.min(maxMs, params.ttlMs ?? maxMs));
    const now = ctx.services.now();
    let row: Awaited<ReturnType<typeof upsertClientSubscription>>;
    try {
      row = await upsertClientSubscription(ctx.db, {
        userId: ctx.principal.userId,
        clientKey: ctx.principal.tokenId,
        event: params.name,
        url: params.delivery.url,
        secret: params.delivery.secret,
        expiresAt: new Date(now.getTime() + ttl),
        includeItem: (args as { includeItem?: boolean } | undefined)?.includeItem === true,
      });
    } catch (err) {
      if (err instanceof SubscriptionLimitError) throw new McpError(EVENTS_ERROR.resourceExhausted, err.message, { limit: 'subscriptions' });
      throw err;
    }
    return {
      id: row.id,
      refreshBefore: row.expires_at!.toISOString(),
      cursor: null,
      truncated: false,
      deliveryStatus: {
        active: row.status === 'active',
        verified: row.verified_at !== null,
        lastDeliveryAt: row.last_delivery_at ? row.last_delivery_at.toISOString() : null,
        lastError: row.last_error,
      },
    };
  });
}

function unsubscribe(ctx: OperationContext): McpMethod {
  return method(UnsubscribeRequest, async (request) => {
    const params = parse(UnsubscribeParams, request.params);
    knownEvent(params.name);
    const removed = await removeClientSubscription(ctx.db, {
      userId: ctx.principal.userId,
      clientKey: ctx.principal.tokenId,
      event: params.name,
      url: params.delivery?.url,
    });
    if (!removed)
      throw new McpError(
        EVENTS_ERROR.notFound,
        `This client holds no subscription to '${params.name}'${params.delivery?.url ? ` at ${params.delivery.url}` : ''}.`,
        { kind: 'subscription' },
      );
    return {};
  });
}
