/**
 * Instants and days as the pages show them, in the person's time zone: "24 Dec 2026, 17:00"
 * and "24 Dec 2026". They are also what a form sends back, and the API reads them as words in
 * that same zone, so a value shown and saved unchanged stays the same instant.
 */

export function formatTime(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(at);
}

export function formatDay(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium' }).format(at);
}

/** `text` cut to at most `max` characters, with an ellipsis when cut (one-line excerpts). */
export function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
