import type { Knex } from 'knex';

/**
 * Notifications to the person (src/domain/notifications/): the channels they turned on (with a
 * note when one was dropped), the browsers that take Web Push, and each notice's delivery per
 * channel, one row each (unique), so a notice is sent once however often its outbox row is
 * handled.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('notification_settings', (t) => {
    t.uuid('user_id').primary().references('users.id').onDelete('CASCADE');
    t.boolean('push_on').notNullable().defaultTo(false);
    t.boolean('email_on').notNullable().defaultTo(false);
    t.text('email_address');
    t.boolean('email_reminders').notNullable().defaultTo(true);
    t.boolean('email_questions').notNullable().defaultTo(true);
    t.boolean('topic_on').notNullable().defaultTo(false);
    t.text('topic_url');
    t.text('quiet_start');
    t.text('quiet_end');
    t.text('push_note');
    t.text('email_note');
    t.text('topic_note');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('push_subscriptions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('endpoint').notNullable().unique();
    t.text('p256dh').notNullable();
    t.text('auth').notNullable();
    t.text('browser');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('notification_deliveries', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('notice_id').notNullable();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('channel').notNullable();
    t.text('target').notNullable();
    t.jsonb('message').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('job_id');
    t.timestamp('not_before', { useTz: true });
    t.text('last_error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.unique(['notice_id', 'channel', 'target']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('notification_deliveries');
  await knex.schema.dropTable('push_subscriptions');
  await knex.schema.dropTable('notification_settings');
}
