/** What the command prints: aligned tables and sentences for people, JSON for scripts (`--json`), and refusals. */

/** A refusal the command explains in one sentence on stderr, exiting with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Writes one line to standard output. */
export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Writes a value as indented JSON, for scripts. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export interface Column<T> {
  header: string;
  value: (row: T) => string;
}

/** Visible width in a terminal: code points, with the emoji of list icons counted as two columns. */
function width(text: string): number {
  let n = 0;
  for (const ch of text) n += /\p{Extended_Pictographic}/u.test(ch) ? 2 : /\p{Mn}|\u200d|\ufe0f/u.test(ch) ? 0 : 1;
  return n;
}

/** Prints rows under upper-case headers, columns two spaces apart; the last column is not padded. */
export function printTable<T>(rows: readonly T[], columns: Column<T>[]): void {
  const cells = rows.map((row) => columns.map((c) => c.value(row).replace(/\s+/g, ' ')));
  const widths = columns.map((c, i) => Math.max(width(c.header), ...cells.map((r) => width(r[i]!))));
  const line = (values: string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v + ' '.repeat(widths[i]! - width(v))))
      .join('  ')
      .trimEnd();
  say(line(columns.map((c) => c.header.toUpperCase())));
  for (const row of cells) say(line(row));
}
