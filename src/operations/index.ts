/**
 * The operation registry: operationId → handler. REST and MCP both dispatch through it, so
 * the two interfaces cannot drift apart (spec rule 6); the web pages and the command line
 * too, with the person's own operations besides.
 */
import type { Handler, OperationId, PersonOperationId, PublicOperationId } from '../core/context.js';
import { get_context } from './get_context.js';
import { list_lists } from './list_lists.js';
import { create_list } from './create_list.js';
import { list_items } from './list_items.js';
import { create_items } from './create_items.js';
import { update_items } from './update_items.js';
import { delete_items } from './delete_items.js';
import { query_items } from './query_items.js';
import { get_item } from './get_item.js';
import { list_deleted } from './list_deleted.js';
import { restore_deleted } from './restore_deleted.js';
import { read_chat_messages } from './read_chat_messages.js';
import { post_chat_message } from './post_chat_message.js';
import { create_event_subscription } from './create_event_subscription.js';
import { list_event_subscriptions } from './list_event_subscriptions.js';
import { delete_event_subscription } from './delete_event_subscription.js';
import { create_image_upload } from './create_image_upload.js';
import { list_automations } from './list_automations.js';
import { get_automation_runs } from './get_automation_runs.js';
import { run_automation } from './run_automation.js';
import { search } from './search.js';
import { update_list } from './update_list.js';
import { delete_list } from './delete_list.js';
import { move_items } from './move_items.js';
import { get_calendar_feed } from './get_calendar_feed.js';
import { create_calendar_feed } from './create_calendar_feed.js';
import { revoke_calendar_feed } from './revoke_calendar_feed.js';
import { export_workspace } from './export_workspace.js';
import { export_list_csv } from './export_list_csv.js';
import { create_import } from './create_import.js';
import { preview_import } from './preview_import.js';
import { get_import } from './get_import.js';
import { list_labels } from './list_labels.js';
import { post_person_message } from './post_person_message.js';
import { set_notification_settings } from './set_notification_settings.js';
import { add_push_subscription } from './add_push_subscription.js';
import { remove_push_subscription } from './remove_push_subscription.js';
import { create_app_password } from './create_app_password.js';
import { revoke_app_password } from './revoke_app_password.js';
import { mark_chat_read } from './mark_chat_read.js';
import { add_memory } from './add_memory.js';
import { remove_memory } from './remove_memory.js';
import { create_automation } from './create_automation.js';
import { set_automation_status } from './set_automation_status.js';
import { delete_automation } from './delete_automation.js';
import { create_api_key } from './create_api_key.js';
import { revoke_api_key } from './revoke_api_key.js';
import { change_password } from './change_password.js';
import { set_time_zone } from './set_time_zone.js';
import { end_sessions } from './end_sessions.js';

type AnyHandler = Handler<OperationId>;

/** Every served operation of openapi.yaml (its paths): the type check fails on one without a handler. */
export const handlers = {
  get_context,
  list_lists,
  create_list,
  list_items,
  create_items,
  update_items,
  delete_items,
  query_items,
  get_item,
  list_deleted,
  restore_deleted,
  read_chat_messages,
  post_chat_message,
  create_event_subscription,
  list_event_subscriptions,
  delete_event_subscription,
  create_image_upload,
  list_automations,
  get_automation_runs,
  run_automation,
  search,
  update_list,
  delete_list,
  move_items,
  get_calendar_feed,
  create_calendar_feed,
  revoke_calendar_feed,
  export_workspace,
  export_list_csv,
  create_import,
  preview_import,
  get_import,
  list_labels,
} satisfies { [K in PublicOperationId]: Handler<K> } as unknown as Record<PublicOperationId, AnyHandler>;

/** The person's own operations (x-person-paths of openapi.yaml), for the web pages and the command line only. */
export const personHandlers = {
  post_person_message,
  mark_chat_read,
  add_memory,
  remove_memory,
  create_automation,
  set_automation_status,
  delete_automation,
  create_api_key,
  revoke_api_key,
  change_password,
  set_time_zone,
  end_sessions,
  set_notification_settings,
  add_push_subscription,
  remove_push_subscription,
  create_app_password,
  revoke_app_password,
} satisfies { [K in PersonOperationId]: Handler<K> } as unknown as Record<PersonOperationId, AnyHandler>;
