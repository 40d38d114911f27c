/**
 * CSV cells a spreadsheet would run as formulas, neutralised as OWASP's CSV injection guidance
 * says: a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is written with
 * a single quote before it, so a spreadsheet shows it as text. A cell that already starts with
 * quotes before such a character gets one more, and the import takes exactly one away, so a
 * round trip gives back every value as it was and never grows a quote. A cell that is a
 * number alone (`-5`, `+1.5e3`) runs nothing and is written as it is, so a negative number in
 * a number column stays a number in a spreadsheet and on import.
 * @see docs/export.md
 */
const FORMULA = /^'*[=+\-@\t\r]/;
const QUOTED_FORMULA = /^'+[=+\-@\t\r]/;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A cell as the export writes it. */
export function toCsvCell(value: string): string {
  return FORMULA.test(value) && !NUMBER.test(value) ? `'${value}` : value;
}

/** A cell of a CSV as the value it stands for: the export's quote before a formula character taken away. */
export function fromCsvCell(cell: string): string {
  return QUOTED_FORMULA.test(cell) ? cell.slice(1) : cell;
}
