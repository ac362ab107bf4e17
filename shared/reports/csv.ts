/**
 * CSV export of a report (RFC 4180): one column per property (its csvName), and with compare
 * rows the same columns again suffixed `_comparison` — for orders per day exactly the
 * comparison CSV of spec 2.4. Every value is double-quoted, inner quotes doubled, lines end
 * with CRLF.
 *
 * Formula neutralisation: a text value gets a leading `'` (and is otherwise kept as is) when it
 * starts with a tab or a carriage return, or when its first character after any leading
 * whitespace (JavaScript's `\s`) and invisible format characters (Unicode Cf: direction marks,
 * zero-width characters, the soft hyphen, …) is `=`, `+`, `-` or `@`, or one that NFKC turns into
 * one of them (fullwidth `＝`, small `﹢`, superscript `⁺`, …): spreadsheet importers that trim or
 * ignore those would otherwise read the cell as a formula. Numbers are written as JavaScript
 * prints them (`-12.5`, `1e+21`) and never neutralised: a spreadsheet reads them as that number,
 * and a `'` would turn a negative amount into text that sums skip.
 */
import preferredMediaTypes from 'negotiator/lib/mediaType';
import { validationError } from '../errors';
import type { GatewayResult } from '../http/event';
import { negotiableAccept } from './accept';
import type { PropertyDefinition, ReportRow } from './report';

export type ReportFormat = 'json' | 'csv';

/** Characters a spreadsheet may run as a formula when a cell starts with them. */
const FORMULA_START = /^[=+\-@]/;

/** Leading characters an importer may trim or ignore: see the module header. */
const LEADING_BLANKS = /^[\s\p{Cf}]+/u;

/** Whether a spreadsheet could read this text as a formula (the rule of the module header). */
const isFormulaLike = (text: string): boolean => {
  if (text.startsWith('\t') || text.startsWith('\r')) return true;
  const [first = ''] = text.replace(LEADING_BLANKS, '');
  return FORMULA_START.test(first.normalize('NFKC'));
};

const cell = (value: string | number | undefined): string => {
  if (value === undefined) return '""';
  const text =
    typeof value === 'number' ? String(value) : isFormulaLike(value) ? `'${value}` : value;
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
 * What a report answers in; for any type (or no Accept), the first. Both are UTF-8, offered with
 * that charset so that a range naming it matches, and outranks one without (accept.ts).
 */
const JSON_TYPE = 'application/json;charset=utf-8';
const CSV_TYPE = 'text/csv;charset=utf-8';

/**
 * JSON unless the client asks for CSV, with `format=csv` (a plain download link) or an
 * Accept header preferring text/csv, its q-values honoured (negotiator): `text/csv;q=0` is a
 * refusal of CSV, and of two types of the same q the one the client lists first wins. The
 * header is cleaned first (accept.ts): an element with an invalid q-value (`1.5`, `0.1234`)
 * is ignored, as is one naming a charset other than UTF-8 (`text/csv;charset=iso-8859-1`);
 * other parameters (`header=present`) do not matter. With nothing acceptable left, JSON.
 * An unknown or repeated `format` is a 400.
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
  const header = accept.length === 0 ? undefined : negotiableAccept(accept.join(', '));
  return preferredMediaTypes(header, [JSON_TYPE, CSV_TYPE])[0] === CSV_TYPE ? 'csv' : 'json';
};
