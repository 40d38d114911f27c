/**
 * The operation registry: operationId → handler. REST and MCP both dispatch through it, so
 * the two interfaces cannot drift apart (spec rule 6).
 */
import type { Handler, OperationId } from './types.js';
import { get_context } from './get_context.js';
import { list_lists } from './list_lists.js';
import { create_list } from './create_list.js';

type AnyHandler = Handler<OperationId>;

export const handlers: Partial<Record<OperationId, AnyHandler>> = {
  get_context,
  list_lists,
  create_list,
} as unknown as Partial<Record<OperationId, AnyHandler>>;
