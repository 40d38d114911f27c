/**
 * Instants and days as the pages show them, in the person's time zone: "24 Dec 2026, 17:00"
 * and "24 Dec 2026". They are also what a form sends back, and the API reads them as words in
 * that same zone, so a value shown and saved unchanged stays the same instant. And where an
 * OAuth return address (redirect URI) leads, in words.
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

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Where a return address leads: "an app on this computer, port 8976" or "the site claude.ai". */
export function whereItReturns(uri: string): string {
  const target = URL.parse(uri);
  if (!target) return 'an address that cannot be read';
  if (LOOPBACK_HOSTS.has(target.hostname)) return `an app on this computer${target.port ? `, port ${target.port}` : ''}`;
  return `the site ${target.host}`;
}
