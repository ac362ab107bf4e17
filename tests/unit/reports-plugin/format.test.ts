import {
  currencySymbol,
  formatValue,
  hasData,
  headerText,
  minorUnits,
  shownProperties,
  type FormatContext,
} from '../../../tools/reports-plugin/src/format';
import { languageOf, translator } from '../../../tools/reports-plugin/src/i18n';
import type { ReportProperty, ReportSpec } from '../../../tools/reports-plugin/src/reports';
import { SPOKEN } from '../../support/plugin-messages';

const named = (name: string) => ({ name });
const DAY: ReportProperty = { key: 'date', ...named('Day'), type: 'string', unit: 'DATE' };
const MONTH: ReportProperty = {
  key: 'month',
  ...named('Month'),
  type: 'string',
  unit: 'DATE_MONTH',
};
const YEAR: ReportProperty = { key: 'year', ...named('Year'), type: 'string', unit: 'DATE_YEAR' };
const SALES: ReportProperty = {
  key: 'revenue',
  ...named('Sales'),
  type: 'number',
  unit: 'CURRENCY',
};
const ORDERS: ReportProperty = { key: 'orderCount', ...named('Orders'), type: 'integer' };
const DISH: ReportProperty = { key: 'name', ...named('Dish'), type: 'string' };
const STATE: ReportProperty = { key: 'state', ...named('State'), type: 'string' };
const PLACED_AT: ReportProperty = { key: 'placedAt', ...named('Placed at'), type: 'string' };

/** The context of an owner whose token says `locale`. */
const at = (locale: string, currency?: string): FormatContext => {
  const language = languageOf(locale);
  return { locale, t: translator(SPOKEN[language]), currency };
};

const LOCALES = ['en-US', 'de-DE', 'ar-AE'] as const;

/** How the locale writes a whole number without grouping: its own digits, from Intl. */
const digits = (locale: string, value: number): string =>
  new Intl.NumberFormat(locale, { useGrouping: false }).format(value);

describe('the units in the browser locales the preview tests use', () => {
  it.each([
    ['en-US', 'Nov 25, 2026', 'November 2026', '2026'],
    ['de-DE', '25.11.2026', 'November 2026', '2026'],
  ])('%s: DATE, DATE_MONTH and DATE_YEAR', (locale, day, month, year) => {
    const context = at(locale, 'AED');
    expect(formatValue(DAY, '2026-11-25', context)).toBe(day);
    expect(formatValue(MONTH, '2026-11-01', context)).toBe(month);
    expect(formatValue(YEAR, '2026-01-01', context)).toBe(year);
  });

  it('ar-AE: the day first, the Arabic month name, the year in the locale digits', () => {
    const context = at('ar-AE', 'AED');
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
      expect(formatValue(MONTH, '2026-01-01', at(locale))).toContain(name);
    },
  );

  it.each(['Pacific/Pago_Pago', 'Pacific/Kiritimati', 'Asia/Dubai'])(
    'a DATE is its calendar date in any time zone of the browser (%s)',
    (zone) => {
      const saved = process.env.TZ;
      process.env.TZ = zone;
      try {
        expect(formatValue(DAY, '2026-01-01', at('de-DE'))).toBe('01.01.2026');
        expect(formatValue(YEAR, '2026-01-01', at('en-US'))).toBe('2026');
        expect(formatValue(MONTH, '2026-03-01', at('en-US'))).toBe('March 2026');
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
      expect(formatValue(SALES, 1284.5, at(locale, currency))).toBe(text);
    },
  );

  it('CURRENCY without a known currency keeps the decimals the API sent', () => {
    expect(formatValue(SALES, 12.5, at('en-US'))).toBe('12.5');
    expect(formatValue(SALES, 0.125, at('de-DE'))).toBe('0,125');
  });

  it('numbers without a unit in the locale, text as sent', () => {
    expect(formatValue(ORDERS, 12345, at('en-US'))).toBe('12,345');
    expect(formatValue(ORDERS, 12345, at('de-DE'))).toBe('12.345');
    expect(formatValue(DISH, 'Falafel Wrap', at('ar-AE'))).toBe('Falafel Wrap');
    expect(formatValue(DAY, undefined, at('en-US'))).toBe('');
    expect(formatValue(DAY, 'not a date', at('en-US'))).toBe('not a date');
  });
});

describe('the currency symbol is in the header only', () => {
  it.each([
    ['en-US', 'AED', 'Sales (AED)'],
    ['de-DE', 'EUR', 'Umsatz (€)'],
    ['en-US', 'EUR', 'Sales (€)'],
    ['ar-AE', 'AED', `المبيعات (${currencySymbol('AED', 'ar-AE')})`],
  ])('%s, %s: %s', (locale, currency, header) => {
    expect(headerText(SALES, at(locale, currency))).toBe(header);
    expect(formatValue(SALES, 1, at(locale, currency))).not.toContain(
      currencySymbol(currency, locale),
    );
  });

  it('the symbol is the one Intl writes beside an amount in that locale', () => {
    const amount = new Intl.NumberFormat('ar-AE', { style: 'currency', currency: 'AED' }).format(1);
    expect(amount).toContain(currencySymbol('AED', 'ar-AE'));
    expect(currencySymbol('AED', 'ar-AE')).toMatch(/د\.إ/);
  });

  it('other columns, and a currency column while the currency is unknown, show the name', () => {
    expect(headerText(ORDERS, at('en-US', 'AED'))).toBe('Orders');
    expect(headerText(SALES, at('en-US'))).toBe('Sales');
  });

  it('minor units follow ISO 4217', () => {
    expect([minorUnits('AED'), minorUnits('KWD'), minorUnits('BHD'), minorUnits('JPY')]).toEqual([
      2, 3, 3, 0,
    ]);
  });
});

describe('readable values', () => {
  it('a date-time shows the time of its own clock (the restaurant’s), in the owner’s format', () => {
    const value = '2026-11-26T16:45:00+04:00';
    expect(formatValue(PLACED_AT, value, at('en-US'))).toBe('4:45 PM');
    expect(formatValue(PLACED_AT, value, at('de-DE'))).toBe('16:45');
    expect(formatValue(PLACED_AT, '2026-11-26T09:05:00-06:00', at('es-MX'))).toBe(
      new Intl.DateTimeFormat('es-MX', { timeStyle: 'short', timeZone: 'UTC' }).format(
        Date.UTC(2026, 10, 26, 9, 5),
      ),
    );
  });

  it('an order state is a word of the owner’s language; an unknown one stays as sent', () => {
    expect(formatValue(STATE, 'DELIVERED', at('en-US'))).toBe('Delivered');
    expect(formatValue(STATE, 'CANCELLED', at('de-DE'))).toBe('Storniert');
    expect(formatValue(STATE, 'REJECTED', at('es-ES'))).toBe('Rechazado');
    expect(formatValue(STATE, 'DELIVERED', at('ar-AE'))).toBe('تم التوصيل');
    expect(formatValue(STATE, 'LOST', at('en-US'))).toBe('LOST');
    expect(formatValue(DISH, 'DELIVERED', at('en-US'))).toBe('DELIVERED');
  });

  it('a comparison header reads as one phrase, the currency last', () => {
    expect(headerText(SALES, at('en-US', 'AED'), true)).toBe('Sales, comparison period (AED)');
    expect(headerText(ORDERS, at('de-DE', 'EUR'), true)).toBe('Bestellungen, Vergleichszeitraum');
    // A name the messages do not translate (a new report's) stays English.
    expect(headerText({ ...ORDERS, name: 'Refunds' }, at('de-DE'), true)).toBe(
      'Refunds, Vergleichszeitraum',
    );
  });

  const report = (properties: ReportProperty[]): ReportSpec => ({
    id: 'r',
    title: 'R',
    path: '/r',
    properties,
    range: null,
    compare: false,
  });

  it('a year beside a month (which names its year) is not a column of its own', () => {
    expect(shownProperties(report([MONTH, YEAR, ORDERS])).map((p) => p.key)).toEqual([
      'month',
      'orderCount',
    ]);
    expect(shownProperties(report([YEAR, ORDERS])).map((p) => p.key)).toEqual([
      'year',
      'orderCount',
    ]);
  });

  it('a series of zeros holds no data; a number in the period or its comparison does', () => {
    const perDay = report([DAY, ORDERS, SALES]);
    expect(hasData(perDay, [])).toBe(false);
    expect(hasData(perDay, [{ data: { date: '2026-01-01', orderCount: 0, revenue: 0 } }])).toBe(
      false,
    );
    expect(
      hasData(perDay, [
        { data: { date: '2026-01-01', orderCount: 0, revenue: 0 }, compare: { orderCount: 2 } },
      ]),
    ).toBe(true);
    // Rows of things (dishes, orders) are data, whatever their numbers.
    expect(hasData(report([DISH, ORDERS]), [{ data: { name: 'Falafel', orderCount: 0 } }])).toBe(
      true,
    );
    expect(hasData(report([DISH, ORDERS]), [])).toBe(false);
  });
});
