/**
 * The operation registry: operationId → handler. REST and MCP both dispatch through it, so
 * the two interfaces cannot drift apart (spec rule 6).
 */
import type { Handler, OperationId } from '../core/context.js';
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

type AnyHandler = Handler<OperationId>;

/** Every operation of openapi.yaml: the type check fails on one without a handler. */
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
} satisfies { [K in OperationId]: Handler<K> } as unknown as Record<OperationId, AnyHandler>;
