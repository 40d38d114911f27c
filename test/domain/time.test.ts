/**
 * ISO 8601 instants as the service reads them: a date-time without an offset is wall-clock
 * time in the zone given (the person's), else UTC; never the zone of the server's machine.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import { canonicalInstant, localToUtc, parseIsoInstant } from '../../src/domain/time.js';

describe('reading ISO 8601 instants', () => {
  const serverZone = process.env.TZ;
  afterEach(() => {
    if (serverZone === undefined) delete process.env.TZ;
    else process.env.TZ = serverZone;
  });

  it('reads a date-time without an offset in the zone given, across a DST change', () => {
    process.env.TZ = 'Pacific/Auckland';
    expect(parseIsoInstant('2026-03-08T01:30', 'America/New_York')?.toISOString()).toBe('2026-03-08T06:30:00.000Z'); // EST
    expect(parseIsoInstant('2026-03-09T01:30', 'America/New_York')?.toISOString()).toBe('2026-03-09T05:30:00.000Z'); // EDT
    expect(parseIsoInstant('2026-07-01T09:00:05.25', 'Europe/London')?.toISOString()).toBe('2026-07-01T08:00:05.250Z');
  });

  it('reads it as UTC when no zone is given, whatever TZ the process runs in', () => {
    for (const zone of ['Asia/Tokyo', 'America/Los_Angeles', 'UTC']) {
      process.env.TZ = zone;
      expect(parseIsoInstant('2026-12-01T09:00')?.toISOString()).toBe('2026-12-01T09:00:00.000Z');
      expect(canonicalInstant('2026-12-01 09:00:01.5')).toBe('2026-12-01T09:00:01.500000Z');
    }
  });

  it('keeps an explicit offset and reads a date alone at midnight UTC', () => {
    expect(parseIsoInstant('2026-12-01T09:00+05:30', 'America/New_York')?.toISOString()).toBe('2026-12-01T03:30:00.000Z');
    expect(parseIsoInstant('2026-12-01T09:00Z', 'America/New_York')?.toISOString()).toBe('2026-12-01T09:00:00.000Z');
    expect(parseIsoInstant('2026-12-01', 'America/New_York')?.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(parseIsoInstant('2026-02-30T09:00', 'Europe/London')).toBeNull();
  });

  it('reads years below 100 as written (not as 19xx)', () => {
    expect(localToUtc(5, 6, 1, 12, 0, 'UTC').toISOString()).toBe('0005-06-01T12:00:00.000Z');
    expect(parseIsoInstant('0042-01-01T00:00', 'UTC')?.toISOString()).toBe('0042-01-01T00:00:00.000Z');
  });
});
