import type { Handler } from '../core/context.js';
import { CallbackUrlError, checkCallbackUrl } from '../core/outbound.js';
import { createSubscription, mintSecret, secretProblem, subscriptionDto, SubscriptionLimitError } from '../domain/changes/subscriptions.js';
import { ApiError, invalid, toolError } from '../core/errors.js';

/**
 * POST /event-subscriptions: registers a callback for the chosen events (task.awaitingAgent
 * when none are named). It stays `pending` until
 * the URL answers the verification challenge (sent at once through the outbox and the queue).
 * A minted secret is shown in this answer only; a caller's own secret is never shown back.
 */
export const create_event_subscription: Handler<'create_event_subscription'> = async (ctx, input) => {
  const { db, principal, config } = ctx;
  try {
    await checkCallbackUrl(input.url, config.outboundAllowPrivate);
  } catch (err) {
    // The URL matches the schema; this service refuses it (its address, or http here): 409.
    if (err instanceof CallbackUrlError) throw new ApiError('toolError', err.message, { field: 'url' });
    throw err;
  }
  const problem = input.secret === undefined ? null : secretProblem(input.secret);
  if (problem) throw invalid(problem, 'secret');
  const minted = input.secret === undefined ? mintSecret() : undefined;
  try {
    const row = await createSubscription(db, {
      userId: principal.userId,
      url: input.url,
      secret: input.secret ?? minted!,
      credential: principal.tokenId,
      events: input.events,
      includeItem: input.includeItem,
    });
    return subscriptionDto(row, minted);
  } catch (err) {
    if (err instanceof SubscriptionLimitError) throw toolError(err.message);
    throw err;
  }
};
