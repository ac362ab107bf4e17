import {
  currencySymbol,
  direction,
  formatValue,
  headerText,
  minorUnits,
} from '../../../../plugins/reports/src/format';
import type { ReportProperty } from '../../../../plugins/reports/src/reports';

const DAY: ReportProperty = { key: 'date', name: 'Day', type: 'string', unit: 'DATE' };
const MONTH: ReportProperty = { key: 'month', name: 'Month', type: 'string', unit: 'DATE_MONTH' };
const YEAR: ReportProperty = { key: 'year', name: 'Year', type: 'string', unit: 'DATE_YEAR' };
const SALES: ReportProperty = { key: 'revenue', name: 'Sales', type: 'number', unit: 'CURRENCY' };
const ORDERS: ReportProperty = { key: 'orderCount', name: 'Orders', type: 'integer' };
const DISH: ReportProperty = { key: 'name', name: 'Dish', type: 'string' };

const LOCALES = ['en-US', 'de-DE', 'ar-AE'] as const;

/** How the locale writes a whole number without grouping: its own digits, from Intl. */
const digits = (locale: string, value: number): string =>
  new Intl.NumberFormat(locale, { useGrouping: false }).format(value);

describe('the units in the browser locales the preview tests use', () => {
  it.each([
    ['en-US', 'Nov 25, 2026', 'November 2026', '2026'],
    ['de-DE', '25.11.2026', 'November 2026', '2026'],
  ])('%s: DATE, DATE_MONTH and DATE_YEAR', (locale, day, month, year) => {
    const context = { locale, currency: 'AED' };
    expect(formatValue(DAY, '2026-11-25', context)).toBe(day);
    expect(formatValue(MONTH, '2026-11-01', context)).toBe(month);
    expect(formatValue(YEAR, '2026-01-01', context)).toBe(year);
  });

  it('ar-AE: the day first, the Arabic month name, the year in the locale digits', () => {
    const context = { locale: 'ar-AE', currency: 'AED' };
    const day = formatValue(DAY, '2026-11-25', context);
    expect(day.replace(/\u200f/g, '')).toBe(
      [digits('ar-AE', 25), digits('ar-AE', 11), digits('ar-AE', 2026)].join('/'),
    );
    expect(formatValue(MONTH, '2026-11-01', context)).toBe(`نوفمبر ${digits('ar-AE', 2026)}`);
    expect(formatValue(YEAR, '2026-01-01', context)).toBe(digits('ar-AE', 2026));
  });

  it.each(LOCALES)(
    '%s: a month is its month name, whatever day it would be in UTC-11',
    (locale) => {
      const name = new Intl.DateTimeFormat(locale, { month: 'long', timeZone: 'UTC' }).format(
        Date.UTC(2026, 0, 15),
      );
      expect(formatValue(MONTH, '2026-01-01', { locale })).toContain(name);
    },
  );

  it.each(['Pacific/Pago_Pago', 'Pacific/Kiritimati', 'Asia/Dubai'])(
    'a DATE is its calendar date in any time zone of the browser (%s)',
    (zone) => {
      const saved = process.env.TZ;
      process.env.TZ = zone;
      try {
        expect(formatValue(DAY, '2026-01-01', { locale: 'de-DE' })).toBe('01.01.2026');
        expect(formatValue(YEAR, '2026-01-01', { locale: 'en-US' })).toBe('2026');
        expect(formatValue(MONTH, '2026-03-01', { locale: 'en-US' })).toBe('March 2026');
      } finally {
        process.env.TZ = saved;
      }
    },
  );

  it.each([
    ['en-US', 'AED', '1,284.50'],
    ['de-DE', 'AED', '1.284,50'],
    ['ar-AE', 'AED', new Intl.NumberFormat('ar-AE', { minimumFractionDigits: 2 }).format(1284.5)],
    ['en-US', 'KWD', '1,284.500'],
    ['de-DE', 'KWD', '1.284,500'],
    ['en-US', 'JPY', '1,285'],
  ])(
    '%s: CURRENCY in %s is the number with its minor units, no symbol',
    (locale, currency, text) => {
      expect(formatValue(SALES, 1284.5, { locale, currency })).toBe(text);
    },
  );

  it('CURRENCY without a known currency keeps the decimals the API sent', () => {
    expect(formatValue(SALES, 12.5, { locale: 'en-US' })).toBe('12.5');
    expect(formatValue(SALES, 0.125, { locale: 'de-DE' })).toBe('0,125');
  });

  it('numbers without a unit in the locale, text as sent', () => {
    expect(formatValue(ORDERS, 12345, { locale: 'en-US' })).toBe('12,345');
    expect(formatValue(ORDERS, 12345, { locale: 'de-DE' })).toBe('12.345');
    expect(formatValue(DISH, 'Falafel Wrap', { locale: 'ar-AE' })).toBe('Falafel Wrap');
    expect(formatValue(DAY, undefined, { locale: 'en-US' })).toBe('');
    expect(formatValue(DAY, 'not a date', { locale: 'en-US' })).toBe('not a date');
  });
});

describe('the currency symbol is in the header only', () => {
  it.each([
    ['en-US', 'AED', 'Sales (AED)'],
    ['de-DE', 'EUR', 'Sales (€)'],
    ['en-US', 'EUR', 'Sales (€)'],
    ['ar-AE', 'AED', `Sales (${currencySymbol('AED', 'ar-AE')})`],
  ])('%s, %s: %s', (locale, currency, header) => {
    expect(headerText(SALES, { locale, currency })).toBe(header);
    expect(formatValue(SALES, 1, { locale, currency })).not.toContain(
      currencySymbol(currency, locale),
    );
  });

  it('the symbol is the one Intl writes beside an amount in that locale', () => {
    const amount = new Intl.NumberFormat('ar-AE', { style: 'currency', currency: 'AED' }).format(1);
    expect(amount).toContain(currencySymbol('AED', 'ar-AE'));
    expect(currencySymbol('AED', 'ar-AE')).toMatch(/د\.إ/);
  });

  it('other columns, and a currency column while the currency is unknown, show the name', () => {
    expect(headerText(ORDERS, { locale: 'en-US', currency: 'AED' })).toBe('Orders');
    expect(headerText(SALES, { locale: 'en-US' })).toBe('Sales');
  });

  it('minor units follow ISO 4217', () => {
    expect([minorUnits('AED'), minorUnits('KWD'), minorUnits('BHD'), minorUnits('JPY')]).toEqual([
      2, 3, 3, 0,
    ]);
  });
});

describe('direction', () => {
  it.each([
    ['ar-AE', 'rtl'],
    ['ar', 'rtl'],
    ['he-IL', 'rtl'],
    ['en-US', 'ltr'],
    ['de-DE', 'ltr'],
  ])('%s is %s', (locale, dir) => {
    expect(direction(locale)).toBe(dir);
  });
});
