import type { Knex } from 'knex';

/**
 * Events and chat: the task field that releases `task.awaitingAgent` (`items.assigned_agent`),
 * webhook subscriptions (REST and MCP `events/subscribe`) and their deliveries.
 * @see docs/events.md
 */
export async function up(knex: Knex): Promise<void> {
  // The agent a task is assigned to, by name; setting it emits task.awaitingAgent (reason `assigned`).
  await knex.schema.alterTable('items', (t) => {
    t.text('assigned_agent');
  });

  await knex.schema.createTable('event_subscriptions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    // 'rest' (POST /event-subscriptions) or 'mcp' (events/subscribe).
    t.text('via').notNullable();
    // For MCP subscriptions: the token that made it (principal.tokenId); one subscription per client and event.
    t.text('client_key');
    t.text('url').notNullable();
    // The signing secret (whsec_ + base64). Kept as is: the service must sign with it.
    t.text('secret').notNullable();
    t.specificType('events', 'text[]').notNullable();
    // pending (not yet verified) → active (challenge answered) → retired (410, or removed by the service).
    t.text('status').notNullable().defaultTo('pending');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('verified_at', { useTz: true });
    t.timestamp('retired_at', { useTz: true });
    // MCP subscriptions lapse here unless refreshed; null for REST subscriptions.
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('last_delivery_at', { useTz: true });
    // A category (connection_refused, timeout, tls_error, http_4xx, http_5xx, challenge_failed, blocked_address), never a raw answer.
    t.text('last_error');
  });
  await knex.raw('CREATE INDEX event_subscriptions_user_idx ON event_subscriptions (user_id)');
  await knex.raw(`CREATE UNIQUE INDEX event_subscriptions_client_key ON event_subscriptions (user_id, client_key, (events[1])) WHERE via = 'mcp'`);

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('subscription_id').notNullable().references('event_subscriptions.id').onDelete('CASCADE');
    // The webhook-id header: the event's id (evt_…) or msg_verification_… for a challenge. Same on every retry.
    t.text('message_id').notNullable();
    t.text('kind').notNullable(); // 'event' | 'verification'
    t.jsonb('payload').notNullable();
    // pending → delivered | failed (attempts used up) | discarded (subscription retired or removed)
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    // The pg-boss job that delivers it; null until queued (the fan-out queues every row still null).
    t.text('job_id');
    t.integer('last_status');
    t.text('last_error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
  });
  await knex.raw('CREATE UNIQUE INDEX webhook_deliveries_message_key ON webhook_deliveries (subscription_id, message_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.dropTableIfExists('event_subscriptions');
  await knex.schema.alterTable('items', (t) => {
    t.dropColumn('assigned_agent');
  });
}
