/**
 * Reading `timestamptz` values from Postgres. pg's own parser (postgres-date) runs three
 * regular expressions and seven number parses a value; a page of 50 items has eight
 * timestamps a row, and that parsing was a visible share of list_items' time in the profile
 * (bench/README.md). The form Postgres sends for every instant of years 100 to 9999
 * (`2026-11-25 10:00:00.123456+00`, in the ISO date style) is read here by character codes;
 * anything else (BC years, years below 100 or above 9999, infinity, another date style) goes
 * to pg's parser, so the result is always the Date pg would have made.
 */
import pg from 'pg';

const DASH = 45;
const SPACE = 32;
const COLON = 58;
const DOT = 46;
const PLUS = 43;
const ZERO = 48;
/** Seconds in the minutes and seconds of an offset (`+05:30`, `+00:19:32`). */
const OFFSET_UNITS = [60, 1] as const;

const digit = (text: string, at: number): number => {
  const d = text.charCodeAt(at) - ZERO;
  return d >= 0 && d <= 9 ? d : Number.NaN;
};
const two = (text: string, at: number): number => digit(text, at) * 10 + digit(text, at + 1);

/** The instant of `YYYY-MM-DD HH:MM:SS[.ffffff]±HH[:MM[:SS]]`, or null for any other text. */
export function readIsoTimestamptz(text: string): Date | null {
  if (
    text.length < 22 ||
    text.charCodeAt(4) !== DASH ||
    text.charCodeAt(7) !== DASH ||
    text.charCodeAt(10) !== SPACE ||
    text.charCodeAt(13) !== COLON ||
    text.charCodeAt(16) !== COLON
  )
    return null;
  const year = two(text, 0) * 100 + two(text, 2);
  if (!(year >= 100)) return null; // Date.UTC reads 0-99 as 1900-1999; NaN is not a year
  let at = 19;
  let ms = 0;
  if (text.charCodeAt(at) === DOT) {
    // The fraction to the millisecond, truncated, as pg's parser keeps it.
    let scale = 100;
    for (at++; at < text.length; at++) {
      const d = digit(text, at);
      if (Number.isNaN(d)) break;
      ms += d * scale;
      scale /= 10;
    }
    ms = Math.floor(ms);
  }
  const sign = text.charCodeAt(at);
  if (sign !== PLUS && sign !== DASH) return null;
  let offset = two(text, at + 1) * 3600;
  at += 3;
  for (const unit of OFFSET_UNITS) {
    if (at === text.length) break;
    if (text.charCodeAt(at) !== COLON) return null;
    offset += two(text, at + 1) * unit;
    at += 3;
  }
  if (at !== text.length) return null;
  const utc = Date.UTC(year, two(text, 5) - 1, two(text, 8), two(text, 11), two(text, 14), two(text, 17), ms);
  const time = utc - (sign === PLUS ? 1 : -1) * offset * 1000;
  return Number.isNaN(time) ? null : new Date(time);
}

const pgTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => unknown;

/** pg's type parser for timestamptz: the common form read fast, the rest by pg's own. */
export function parseTimestamptz(text: string): unknown {
  return readIsoTimestamptz(text) ?? pgTimestamptz(text);
}
