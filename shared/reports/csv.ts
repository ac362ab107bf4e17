/**
 * CSV export of a report (RFC 4180): one column per property (its csvName), and with compare
 * rows the same columns again suffixed `_comparison` — for orders per day exactly the
 * comparison CSV of spec 2.4. Every value is double-quoted, inner quotes doubled, lines end
 * with CRLF. Text a spreadsheet would run as a formula is neutralised with a leading `'`;
 * numbers stay numbers.
 */
import { validationError } from '../errors';
import type { GatewayResult } from '../http/event';
import type { PropertyDefinition, ReportRow } from './report';

export type ReportFormat = 'json' | 'csv';

const FORMULA_START = /^[=+\-@\t\r]/;

const cell = (value: string | number | undefined): string => {
  if (value === undefined) return '""';
  const text =
    typeof value === 'number' ? String(value) : FORMULA_START.test(value) ? `'${value}` : value;
  return `"${text.replaceAll('"', '""')}"`;
};

export const toCsv = (
  properties: readonly PropertyDefinition[],
  rows: readonly ReportRow[],
): string => {
  const compared = rows.some((row) => row.compare !== undefined);
  const names = properties.map((property) => property.csvName ?? property.key);
  const header = [...names, ...(compared ? names.map((name) => `${name}_comparison`) : [])];
  const lines = rows.map((row) =>
    [
      ...properties.map((property) => cell(row.data[property.key])),
      ...(compared ? properties.map((property) => cell(row.compare?.[property.key])) : []),
    ].join(','),
  );
  return [header.join(','), ...lines].map((line) => `${line}\r\n`).join('');
};

/** A file name from words, each reduced to characters safe in any file system and header. */
export const csvFileName = (words: readonly string[]): string =>
  `${words.map((word) => word.replace(/[^A-Za-z0-9.-]+/g, '-')).join('_')}.csv`;

export const csvResult = (body: string, fileName: string): GatewayResult => ({
  statusCode: 200,
  headers: {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${fileName}"`,
  },
  body,
});

/**
 * JSON unless the client asks for CSV, with `format=csv` (a plain download link) or an
 * Accept header naming text/csv. An unknown or repeated `format` is a 400.
 */
export const reportFormat = (
  format: readonly string[],
  accept: readonly string[],
): ReportFormat => {
  if (format.length > 1) {
    throw validationError([
      { field: 'format', code: 'FIELD_REPEATED', message: 'format must be given once' },
    ]);
  }
  const [asked = ''] = format;
  if (asked === 'csv' || asked === 'json') return asked;
  if (asked !== '') {
    throw validationError([
      { field: 'format', code: 'INVALID_VALUE', message: 'format must be json or csv' },
    ]);
  }
  return accept.some((value) => /(^|[\s,])text\/csv\b/i.test(value)) ? 'csv' : 'json';
};
