/**
 * The API's CSV (shared/reports/csv.ts: a header line of column names, every value
 * double-quoted, CRLF line ends, the report's columns in property order, then the same again
 * for a comparison) made ready for the owner's spreadsheet: a UTF-8 byte-order mark, without
 * which Excel on Windows reads UTF-8 as its ANSI code page; the locale's separator and decimal
 * mark (`;` and `,` where the decimal mark is a comma, as German and Spanish Excel expect); the
 * headers in the owner's language; dates as the locale types them (`20.11.2026`), which Excel
 * reads as dates; each CURRENCY amount with the currency's decimals (`534,40`). Amounts are only
 * padded, never rounded; a value not a plain number or date is kept as the API wrote it (formula
 * guard included), and a file of another shape is kept whole.
 */
import { headerText, sheetDate, type FormatContext } from './format';
import type { ReportProperty } from './reports';

const BOM = '\uFEFF';
/** One quoted value and what ends it. */
const CELL = /"((?:[^"]|"")*)"(,|\r\n)/y;
const DECIMAL = /^(-?\d+)(?:\.(\d+))?$/;

/** `value` with `digits` decimals, when that only adds zeros. */
const padded = (value: string, digits: number | undefined): string => {
  const [, whole, fraction = ''] = DECIMAL.exec(value) ?? [];
  if (whole === undefined || digits === undefined || fraction.length > digits) return value;
  return digits === 0 ? whole : `${whole}.${fraction.padEnd(digits, '0')}`;
};

/** The locale's decimal mark, `.` or `,`, and the list separator its Excel expects with it. */
export const sheetMarks = (
  locale: string,
): { readonly decimal: string; readonly separator: string } =>
  new Intl.NumberFormat(locale).formatToParts(0.5).some((part) => part.value === ',')
    ? { decimal: ',', separator: ';' }
    : { decimal: '.', separator: ',' };

const quoted = (value: string) => `"${value.replaceAll('"', '""')}"`;

export const spreadsheetCsv = (
  csv: string,
  properties: readonly ReportProperty[],
  digits: number | undefined,
  context: FormatContext,
): string => {
  const headerEnd = csv.indexOf('\r\n');
  const width = csv.slice(0, headerEnd).split(',').length;
  if (headerEnd < 0 || (width !== properties.length && width !== 2 * properties.length)) {
    return BOM + csv;
  }
  const { decimal, separator } = sheetMarks(context.locale);
  const value = (property: ReportProperty | undefined, text: string): string => {
    if (!property) return text;
    if (property.type !== 'string' && DECIMAL.test(text)) {
      return (property.unit === 'CURRENCY' ? padded(text, digits) : text).replace('.', decimal);
    }
    return sheetDate(text, context.locale) ?? text;
  };
  let written = properties
    .concat(width > properties.length ? properties : [])
    .map((property, index) => quoted(headerText(property, context, index >= properties.length)))
    .join(separator);
  written += '\r\n';
  let read = headerEnd + 2;
  let column = 0;
  let shaped = true;
  CELL.lastIndex = read;
  for (let match = CELL.exec(csv); match !== null; match = CELL.exec(csv)) {
    read = CELL.lastIndex;
    const [, text = '', end] = match;
    written += `"${value(properties[column % properties.length], text)}"${end === ',' ? separator : end}`;
    column += 1;
    if (end !== ',') {
      shaped &&= column === width;
      column = 0;
    }
  }
  return BOM + (shaped && read === csv.length ? written : csv);
};
