import type { Knex } from 'knex';
import * as core from './20261122000100_core.js';
import * as search from './20261122000300_search.js';
import * as searchSync from './20261122000310_search_sync.js';
import * as events from './20261122000400_events.js';
import * as oauth from './20261122000500_oauth.js';
import * as automations from './20261122000600_automations.js';
import * as unloggedRateLimits from './20261122000700_unlogged_rate_limits.js';
import * as openItemsOrder from './20261122000800_open_items_order_index.js';
import * as bodyOutlines from './20261122000900_body_outlines.js';
import * as searchVectorCodes from './20261122001000_search_vector_codes.js';
import * as chatKeysPerAuthor from './20261124000100_chat_keys_per_author.js';
import * as searchWordsPerReader from './20261124000200_search_words_per_reader.js';
import * as subscriptionCredentials from './20261124000300_subscription_credentials.js';
import * as throttles from './20261124000400_throttles.js';
import * as feedWriteOrder from './20261124000500_feed_write_order.js';
import * as changeEvents from './20261125000100_change_events.js';
import * as hashOauthCredentials from './20261125000200_hash_oauth_credentials.js';
import * as calendarFeeds from './20261125000300_calendar_feeds.js';
import * as imports from './20261125000400_imports.js';
import * as recurrence from './20261125000500_recurrence.js';
import * as labels from './20261125000600_labels.js';
import * as reminders from './20261125000700_reminders.js';
import * as subtasks from './20261125000800_subtasks.js';
import * as itemValuesIndex from './20261125000900_item_values_index.js';
import * as itemScalarValues from './20261126000100_item_scalar_values.js';
import * as outboxTopicIndex from './20261126000200_outbox_topic_index.js';
import * as valueTallies from './20261126000300_value_tallies.js';
import * as caldav from './20261127000100_caldav.js';
import * as notifications from './20261127000200_notifications.js';
import * as talliesInPlace from './20261201000100_tallies_in_place.js';
import * as connectionGrants from './20261201000200_connection_grants.js';
import * as calendarFeedCredential from './20261201000300_calendar_feed_credential.js';
import * as searchVectorEmbedder from './20261202000100_search_vector_embedder.js';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** Every migration in order. A static list, so migrations run the same from src and dist. */
const migrations: [string, Migration][] = [
  ['20261122000100_core', core],
  ['20261122000300_search', search],
  ['20261122000310_search_sync', searchSync],
  ['20261122000400_events', events],
  ['20261122000500_oauth', oauth],
  ['20261122000600_automations', automations],
  ['20261122000700_unlogged_rate_limits', unloggedRateLimits],
  ['20261122000800_open_items_order_index', openItemsOrder],
  ['20261122000900_body_outlines', bodyOutlines],
  ['20261122001000_search_vector_codes', searchVectorCodes],
  ['20261124000100_chat_keys_per_author', chatKeysPerAuthor],
  ['20261124000200_search_words_per_reader', searchWordsPerReader],
  ['20261124000300_subscription_credentials', subscriptionCredentials],
  ['20261124000400_throttles', throttles],
  ['20261124000500_feed_write_order', feedWriteOrder],
  ['20261125000100_change_events', changeEvents],
  ['20261125000200_hash_oauth_credentials', hashOauthCredentials],
  ['20261125000300_calendar_feeds', calendarFeeds],
  ['20261125000400_imports', imports],
  ['20261125000500_recurrence', recurrence],
  ['20261125000600_labels', labels],
  ['20261125000700_reminders', reminders],
  ['20261125000800_subtasks', subtasks],
  ['20261125000900_item_values_index', itemValuesIndex],
  ['20261126000100_item_scalar_values', itemScalarValues],
  ['20261126000200_outbox_topic_index', outboxTopicIndex],
  ['20261126000300_value_tallies', valueTallies],
  ['20261127000100_caldav', caldav],
  ['20261127000200_notifications', notifications],
  ['20261201000100_tallies_in_place', talliesInPlace],
  ['20261201000200_connection_grants', connectionGrants],
  ['20261201000300_calendar_feed_credential', calendarFeedCredential],
  ['20261202000100_search_vector_embedder', searchVectorEmbedder],
];

/** A knex MigrationSource over the static list above. */
export const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => migrations,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};
