/**
 * Reading timestamptz (src/store/timestamps.ts): the text Postgres sends, in any session time
 * zone (whole-hour, half-hour and the seconds-long offsets of local mean time before time
 * zones), reads as the instant Postgres holds, to the millisecond; what the fast reader does
 * not know (BC, years below 100 or past 9999, infinity) goes to pg's own parser.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import type { Knex } from 'knex';
import { createDb } from '../../src/store/db.js';
import { parseTimestamptz, readIsoTimestamptz } from '../../src/store/timestamps.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

describe('reading timestamptz', () => {
  let database: TestDatabase;
  let db: Knex;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 1);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  it('reads what Postgres sends as the instant it holds, in every session zone', async () => {
    // 2,000 instants from 0100 to 9999 with microseconds, plus DST edges and whole seconds.
    const instants = ['2026-03-29 01:00:00+00', '2026-10-25 00:59:59.999999+00', '1970-01-01 00:00:00+00', '1969-12-31 23:59:59.5+00'];
    const zones = ['UTC', 'Europe/London', 'Asia/Kolkata', 'America/St_Johns', 'Asia/Kathmandu', 'Pacific/Chatham', 'America/New_York', 'Europe/Amsterdam'];
    let read = 0;
    for (const zone of zones) {
      await db.raw(`SET TIME ZONE '${zone}'`);
      const { rows } = (await db.raw(
        `SELECT t::text AS text, floor(extract(epoch FROM t) * 1000)::float8 AS ms
           FROM (SELECT unnest(?::timestamptz[]) AS t
                 UNION ALL
                 SELECT timestamptz '0100-01-01 00:00:00+00' + random() * (timestamptz '9999-12-31 00:00:00+00' - timestamptz '0100-01-01 00:00:00+00')
                   FROM generate_series(1, 250)) s`,
        [instants],
      )) as { rows: { text: string; ms: number }[] };
      for (const row of rows) {
        const fast = readIsoTimestamptz(row.text);
        expect([row.text, fast?.getTime()]).toEqual([row.text, row.ms]);
        read++;
      }
    }
    expect(read).toBe(zones.length * (instants.length + 250));
    await db.raw('SET TIME ZONE DEFAULT');
  });

  it('leaves other forms to pg, whose answers parseTimestamptz gives', () => {
    for (const text of ['0044-03-15 12:00:00+00', '0044-03-15 12:00:00+00 BC', '12345-01-01 00:00:00+00', 'infinity', '-infinity', '2026-11-25T10:00:00Z']) {
      expect(readIsoTimestamptz(text)).toBeNull();
    }
    expect((parseTimestamptz('0044-03-15 12:00:00+00') as Date).toISOString()).toBe('0044-03-15T12:00:00.000Z');
    expect((parseTimestamptz('0044-03-15 12:00:00+00 BC') as Date).getUTCFullYear()).toBe(-43);
    expect(parseTimestamptz('infinity')).toBe(Number.POSITIVE_INFINITY);
    expect((parseTimestamptz('2026-11-25 10:00:00.123456+05:30') as Date).toISOString()).toBe('2026-11-25T04:30:00.123Z');
  });
});
