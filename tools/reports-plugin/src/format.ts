/**
 * Values rendered by their unit (spec 2.4) in the owner's locale: DATE a locale date,
 * DATE_MONTH a month name with its year, DATE_YEAR a year, CURRENCY the number with the
 * currency's minor units and no symbol (the symbol is in the column header only). Dates are
 * calendar dates: parsed and formatted in UTC, never through the local time zone. A date-time
 * with an offset shows its own wall-clock time (the restaurant's), a known code its word.
 */
import type { Translate } from './i18n';
import type { ReportProperty, ReportSpec } from './reports';

export interface FormatContext {
  readonly locale: string;
  readonly t: Translate;
  /** ISO 4217 code of the restaurant currency; undefined while unknown. */
  readonly currency?: string | undefined;
  /** Short dates (a chart's axis): day and short month, or the short month alone. */
  readonly short?: boolean;
}

const cache = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat>();
const cached = <F extends Intl.DateTimeFormat | Intl.NumberFormat>(
  key: string,
  make: () => F,
): F => {
  let format = cache.get(key);
  if (!format) {
    format = make();
    cache.set(key, format);
  }
  return format as F;
};

const DATE_OPTIONS: Readonly<Record<string, Intl.DateTimeFormatOptions>> = {
  DATE: { dateStyle: 'medium' },
  DATE_MONTH: { month: 'long', year: 'numeric' },
  DATE_YEAR: { year: 'numeric' },
  DATE_short: { day: 'numeric', month: 'short' },
  DATE_MONTH_short: { month: 'short' },
  DATE_YEAR_short: { year: 'numeric' },
  sheet: { day: '2-digit', month: '2-digit', year: 'numeric' },
};

const dateFormat = (locale: string, kind: string): Intl.DateTimeFormat =>
  cached(
    `${kind}|${locale}`,
    () => new Intl.DateTimeFormat(locale, { ...DATE_OPTIONS[kind], timeZone: 'UTC' }),
  );

/**
 * A calendar date (or a date-time's own wall clock) the way a spreadsheet in the locale types it,
 * in Latin digits without direction marks (`20.11.2026`, `11/20/2026 16:45:00`), or undefined.
 */
export const sheetDate = (value: string, locale: string): string | undefined => {
  const [day = '', time] = DATE_TIME.test(value)
    ? [value.slice(0, 10), /^\d\d:\d\d(:\d\d)?/.exec(value.slice(11))?.[0]]
    : [value];
  const instant = calendarDate(day);
  if (instant === undefined) return undefined;
  const date = dateFormat(`${locale}-u-nu-latn`, 'sheet')
    .format(instant)
    .replace(/[\u200e\u200f\u061c]/g, '');
  return time ? `${date} ${time}` : date;
};

/** The instant of a YYYY-MM-DD calendar date at midnight UTC, or undefined. */
const calendarDate = (value: string): number | undefined => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return undefined;
  return Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
};

/** The minor units (fraction digits) of a currency, as Intl knows them (ISO 4217). */
export const minorUnits = (currency: string): number =>
  cached(
    `minor|${currency}`,
    () => new Intl.NumberFormat('en', { style: 'currency', currency }),
  ).resolvedOptions().maximumFractionDigits ?? 2;

/** The currency's symbol in the locale (`€`, `AED`, `د.إ.‏`). */
export const currencySymbol = (currency: string, locale: string): string =>
  cached(
    `symbol|${locale}|${currency}`,
    () => new Intl.NumberFormat(locale, { style: 'currency', currency }),
  )
    .formatToParts(0)
    .find((part) => part.type === 'currency')?.value ?? currency;

/**
 * A report title or column name in the owner's language: the messages translate the English
 * (`"name.Orders": "Bestellungen"`); a name they do not know (a new report's) stays English.
 */
export const localName = (t: Translate, english: string): string =>
  t.optional(`name.${english}`) ?? english;

/** The column header in the owner's language, with the currency symbol for a CURRENCY column. */
export const headerText = (
  property: ReportProperty,
  context: FormatContext,
  comparison = false,
): string => {
  const name = localName(context.t, property.name);
  const currency =
    property.unit === 'CURRENCY' && context.currency
      ? currencySymbol(context.currency, context.locale)
      : undefined;
  if (currency === undefined) return comparison ? context.t('column.compare', { name }) : name;
  return context.t(comparison ? 'column.compareCurrency' : 'column.currency', { name, currency });
};

/** The columns worth showing: a year beside a month (which names its year) is left out. */
export const shownProperties = (report: ReportSpec): readonly ReportProperty[] => {
  const hasMonth = report.properties.some((property) => property.unit === 'DATE_MONTH');
  return report.properties.filter((property) => !(hasMonth && property.unit === 'DATE_YEAR'));
};

/**
 * Whether the rows hold anything: any row, except for a series of days or months (a row for each,
 * zeros included), which needs a number other than zero in the period or its comparison.
 */
export const hasData = (
  report: ReportSpec,
  rows: readonly {
    data: Readonly<Record<string, unknown>>;
    compare?: Readonly<Record<string, unknown>>;
  }[],
): boolean => {
  const series = report.properties.some((p) => p.unit === 'DATE' || p.unit === 'DATE_MONTH');
  if (!series) return rows.length > 0;
  const measures = report.properties.filter((p) => p.type !== 'string');
  return rows.some((row) =>
    measures.some((p) =>
      [row.data[p.key], row.compare?.[p.key]].some(
        (value) => typeof value === 'number' && value !== 0,
      ),
    ),
  );
};

/** `2026-11-26T16:45:00+04:00`: a date-time with its offset; the wall clock is the restaurant's. */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})$/;

const timeFormat = (locale: string): Intl.DateTimeFormat =>
  cached(
    `time|${locale}`,
    () => new Intl.DateTimeFormat(locale, { timeStyle: 'short', timeZone: 'UTC' }),
  );

/** The time of day a date-time shows on its own clock, or undefined when it is not one. */
export const wallClockTime = (value: string, locale: string): string | undefined => {
  const match = DATE_TIME.exec(value);
  if (!match) return undefined;
  const [y = 0, mo = 1, d = 1, h = 0, mi = 0, s = 0] = match
    .slice(1)
    .map((part: string | undefined) => Number(part ?? 0));
  return timeFormat(locale).format(Date.UTC(y, mo - 1, d, h, mi, s));
};

const numberFormat = (locale: string, digits: { min: number; max: number }): Intl.NumberFormat =>
  cached(
    `number|${locale}|${digits.min}|${digits.max}`,
    () =>
      new Intl.NumberFormat(locale, {
        minimumFractionDigits: digits.min,
        maximumFractionDigits: digits.max,
      }),
  );

/** One value of a row, rendered by its property's unit and type. */
export const formatValue = (
  property: ReportProperty,
  value: string | number | undefined,
  context: FormatContext,
): string => {
  if (value === undefined) return '';
  const { locale } = context;
  switch (property.unit) {
    case 'DATE':
    case 'DATE_MONTH':
    case 'DATE_YEAR': {
      const instant = typeof value === 'string' ? calendarDate(value) : undefined;
      return instant === undefined
        ? String(value)
        : dateFormat(locale, context.short ? `${property.unit}_short` : property.unit).format(
            instant,
          );
    }
    case 'CURRENCY': {
      if (typeof value !== 'number') return value;
      const digits = context.currency ? minorUnits(context.currency) : undefined;
      return numberFormat(
        locale,
        digits === undefined ? { min: 0, max: 3 } : { min: digits, max: digits },
      ).format(value);
    }
    default:
      if (typeof value !== 'number') {
        return (
          wallClockTime(value, locale) ??
          context.t.optional(`value.${property.key}.${value}`) ??
          value
        );
      }
      return numberFormat(locale, { min: 0, max: property.type === 'integer' ? 0 : 4 }).format(
        value,
      );
  }
};
