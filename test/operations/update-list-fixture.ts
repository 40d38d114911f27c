/**
 * The setup the update_list suites share: a test server with Ada and Bob, and helpers that
 * call the operation, make lists, put items straight into the store and read rows back.
 */
import { expect } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';
import { create_list } from '../../src/operations/create_list.js';
import { update_list } from '../../src/operations/update_list.js';
import { ApiError } from '../../src/core/errors.js';
import type { OpInput } from '../../src/core/context.js';
import type { Property } from '../../src/domain/lists/properties.js';
import type { StoredValue } from '../../src/domain/lists/retype.js';

export type PropertyInput = NonNullable<OpInput<'create_list'>['properties']>[number];
/** An item row as stored; `updated_at` in microseconds since the epoch (a Date would round to ms). */
export interface ItemRow {
  id: string;
  list_id: string;
  title: string | null;
  values: Record<string, StoredValue>;
  updated_at: number;
  deleted_at: Date | null;
  archived_at: Date | null;
}

/** Call inside a `describe`: registers the server's hooks and returns the helpers. */
export function useUpdateListFixture() {
  const { server, ada, account } = useTestServer({ accounts: ['Ada', 'Bob'] });
  const bob = account('Bob');

  const update = (input: OpInput<'update_list'>, who: TestAccount = ada) => update_list(server.context(who), input);
  const makeList = (properties: PropertyInput[], extra: Partial<OpInput<'create_list'>> = {}, who: TestAccount = ada) =>
    create_list(server.context(who), { name: 'Books', properties, ...extra });
  const itemsOf = async (listId: string): Promise<ItemRow[]> =>
    (
      (await server
        .db('items')
        .where({ list_id: listId })
        .orderBy('id')
        .select(
          'id',
          'list_id',
          'title',
          'values',
          'deleted_at',
          'archived_at',
          server.db.raw('(extract(epoch from updated_at) * 1000000)::bigint::text AS updated_at'),
        )) as (Omit<ItemRow, 'updated_at'> & { updated_at: string })[]
    ).map((i) => ({ ...i, updated_at: Number(i.updated_at) }));
  /** Inserts items straight into the store (values keyed by property id, as stored). */
  async function addItems(
    listId: string,
    values: Record<string, StoredValue>[],
    who: TestAccount = ada,
    extra: Record<string, unknown> = {},
  ): Promise<ItemRow[]> {
    if (values.length === 0) return [];
    const rows = (await server
      .db('items')
      .insert(values.map((v, i) => ({ owner_id: who.userId, list_id: listId, title: `Item ${i}`, values: JSON.stringify(v), ...extra })))
      .returning('id')) as { id: string }[];
    const stored = await itemsOf(listId);
    return rows.map((r) => stored.find((i) => i.id === r.id)!);
  }
  const listRow = async (id: string) =>
    (await server.db('lists').where({ id }).first()) as {
      name: string;
      properties: Property[];
      updated_at: Date;
      title_label: string | null;
      icon: string | null;
      instructions: string | null;
      layout: string;
    };
  const refusal = async (attempt: Promise<unknown>) => {
    const error = await attempt.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  };
  return { server, ada, bob, update, makeList, addItems, itemsOf, listRow, refusal };
}
