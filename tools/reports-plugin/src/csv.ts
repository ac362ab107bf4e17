/**
 * The API's CSV (shared/reports/csv.ts: a header line of column names, every value
 * double-quoted, CRLF line ends, the report's columns in property order, then the same again
 * for a comparison) made ready for a spreadsheet: a UTF-8 byte-order mark, without which Excel
 * on Windows reads UTF-8 as its ANSI code page, and each CURRENCY amount written with the
 * currency's decimals (`534.40`). Amounts are only padded, never rounded: a value with more
 * decimals, or not a plain decimal number, is kept as the API wrote it, and so is a file of
 * another shape.
 */
import type { ReportProperty } from './reports';

const BOM = '\uFEFF';
/** One quoted value and what ends it. */
const CELL = /"((?:[^"]|"")*)"(,|\r\n)/y;
const DECIMAL = /^(-?\d+)(?:\.(\d+))?$/;

/** `value` with `digits` decimals, when that only adds zeros. */
const padded = (value: string, digits: number): string => {
  const [, whole, fraction = ''] = DECIMAL.exec(value) ?? [];
  if (whole === undefined || fraction.length > digits) return value;
  return digits === 0 ? whole : `${whole}.${fraction.padEnd(digits, '0')}`;
};

export const spreadsheetCsv = (
  csv: string,
  properties: readonly ReportProperty[],
  digits: number | undefined,
): string => {
  const headerEnd = csv.indexOf('\r\n');
  const width = csv.slice(0, headerEnd).split(',').length;
  if (
    headerEnd < 0 ||
    digits === undefined ||
    (width !== properties.length && width !== 2 * properties.length)
  ) {
    return BOM + csv;
  }
  let written = csv.slice(0, headerEnd + 2);
  let read = headerEnd + 2;
  let column = 0;
  let shaped = true;
  CELL.lastIndex = read;
  for (let match = CELL.exec(csv); match !== null; match = CELL.exec(csv)) {
    read = CELL.lastIndex;
    const [, value = '', end] = match;
    const amount = properties[column % properties.length]?.unit === 'CURRENCY';
    written += `"${amount ? padded(value, digits) : value}"${end}`;
    column += 1;
    if (end !== ',') {
      shaped &&= column === width;
      column = 0;
    }
  }
  return BOM + (shaped && read === csv.length ? written : csv);
};
