/**
 * The operation registry: operationId → handler. REST and MCP both dispatch through it, so
 * the two interfaces cannot drift apart (spec rule 6).
 */
import type { Handler, OperationId } from './types.js';
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
import { search } from './search.js';

type AnyHandler = Handler<OperationId>;

export const handlers: Partial<Record<OperationId, AnyHandler>> = {
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
  search,
} as unknown as Partial<Record<OperationId, AnyHandler>>;
