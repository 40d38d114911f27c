import type { Knex } from 'knex';

/**
 * Automations and their runs, image upload slots, and the service's own signing secrets.
 * A scheduled run is claimed by inserting its row with the tick it belongs to
 * (`scheduled_for`): the unique index makes a tick run once however many processes see it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('automations', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('owner_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.text('status').notNullable().defaultTo('draft');
    // Cron in the owner's time zone; null: on demand only.
    t.text('schedule');
    t.jsonb('actions').notNullable().defaultTo('[]');
    t.timestamp('next_run_at', { useTz: true });
    // The item whose chat holds what each run tells the person (made on the first run).
    t.uuid('chat_item_id').references('items.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE automations ADD CONSTRAINT automations_status_check CHECK (status IN ('active', 'paused', 'draft'))`);
  await knex.raw('CREATE INDEX automations_owner_idx ON automations (owner_id, created_at)');
  await knex.raw(`CREATE INDEX automations_due_idx ON automations (next_run_at) WHERE status = 'active' AND schedule IS NOT NULL`);

  await knex.schema.createTable('automation_runs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('automation_id').notNullable().references('automations.id').onDelete('CASCADE');
    t.uuid('owner_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('trigger').notNullable();
    t.timestamp('scheduled_for', { useTz: true });
    t.text('outcome').notNullable().defaultTo('queued');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.jsonb('wrote').notNullable().defaultTo('[]');
    t.text('message');
    t.text('error');
  });
  await knex.raw(`ALTER TABLE automation_runs ADD CONSTRAINT automation_runs_outcome_check CHECK (outcome IN ('queued', 'running', 'succeeded', 'failed'))`);
  await knex.raw('CREATE INDEX automation_runs_automation_idx ON automation_runs (automation_id, created_at DESC)');
  await knex.raw('CREATE UNIQUE INDEX automation_runs_tick_key ON automation_runs (automation_id, scheduled_for) WHERE scheduled_for IS NOT NULL');
  // At most one unfinished run per automation, whatever races the check in run_automation.
  await knex.raw(`CREATE UNIQUE INDEX automation_runs_one_open_key ON automation_runs (automation_id) WHERE outcome IN ('queued', 'running')`);

  await knex.schema.createTable('uploads', (t) => {
    t.text('bucket_path').primary();
    t.uuid('owner_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('mime_type').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.bigInteger('bytes');
    t.timestamp('uploaded_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE INDEX uploads_owner_idx ON uploads (owner_id, created_at DESC)');

  await knex.schema.createTable('service_secrets', (t) => {
    t.text('name').primary();
    t.binary('secret').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['service_secrets', 'uploads', 'automation_runs', 'automations']) await knex.schema.dropTableIfExists(table);
}
