import { sheetMarks, spreadsheetCsv } from '../../../tools/reports-plugin/src/csv';
import { translator } from '../../../tools/reports-plugin/src/i18n';
import de from '../../../tools/reports-plugin/messages/de.json' with { type: 'json' };
import en from '../../../tools/reports-plugin/messages/en.json' with { type: 'json' };
import { pluginReports } from '../../../tools/plugin/reports';
import { catalogue } from '../../../tools/catalogue';
import { toCsv } from '../../../shared/reports/csv';
import type { ReportRow } from '../../../shared/reports/report';

const BOM = '\uFEFF';
const EN = { locale: 'en-US', t: translator(en), currency: 'AED' };
const DE = { locale: 'de-DE', t: translator(de), currency: 'AED' };

/** A report as the plugin knows it, and the CSV the API writes of `rows` for it. */
const report = (id: string) => {
  const spec = pluginReports().find((candidate) => candidate.id === id);
  const definition = catalogue.flatMap((endpoint) =>
    endpoint.answers.kind === 'report' && endpoint.answers.report.id === id
      ? [endpoint.answers.report]
      : [],
  )[0];
  if (!spec || !definition) throw new Error(`no report ${id}`);
  return {
    properties: spec.properties,
    apiCsv: (rows: readonly ReportRow[]) => toCsv(definition.properties, rows),
  };
};

describe('the CSV the plugin saves for a spreadsheet', () => {
  it('starts with a byte-order mark and writes amounts with the currency decimals, comparison too', () => {
    // Prepare
    const { properties, apiCsv } = report('orders-per-day');
    const csv = apiCsv([
      {
        data: { date: '2026-11-20', orderCount: 37, revenue: 534.4 },
        compare: { date: '2026-11-13', orderCount: 2, revenue: 37 },
      },
      { data: { date: '2026-11-21', orderCount: 0, revenue: 0 } },
    ]);

    // Act
    const saved = spreadsheetCsv(csv, properties, 2, EN);

    // Assess
    expect(saved).toBe(
      `${BOM}"Day","Orders","Sales (AED)","Day, comparison period","Orders, comparison period","Sales, comparison period (AED)"\r\n` +
        '"11/20/2026","37","534.40","11/13/2026","2","37.00"\r\n' +
        '"11/21/2026","0","0.00","","",""\r\n',
    );
    expect(Buffer.from(saved, 'utf8').subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  });

  it.each([
    [0, '37', '37'],
    [0, '37.5', '37.5'],
    [3, '1.25', '1.250'],
    [3, '-4', '-4.000'],
    [2, '1.005', '1.005'],
    [2, '1e+21', '1e+21'],
    [2, '', ''],
  ])('with %i decimals writes %s as %s: padded, never rounded', (digits, value, written) => {
    const { properties } = report('orders-per-day');
    const csv = `day,orders,sales\r\n"2026-11-20","3","${value}"\r\n`;

    expect(spreadsheetCsv(csv, properties, digits, EN)).toBe(
      `${BOM}"Day","Orders","Sales (AED)"\r\n"11/20/2026","3","${written}"\r\n`,
    );
  });

  it('keeps dish names as the API wrote them: quotes, commas, line breaks, formula guards', () => {
    // Prepare
    const { properties, apiCsv } = report('dishes');
    const csv = apiCsv([
      { data: { name: 'Groß "Spezial", scharf\r\nneu', orderCount: 3, revenue: 12.5 } },
      { data: { name: '=SUM(A1)', orderCount: 1, revenue: 4 } },
      { data: { name: 'مشاوي', orderCount: 2, revenue: 7.25 } },
    ]);

    // Act
    const saved = spreadsheetCsv(csv, properties, 3, EN);

    // Assess
    expect(saved).toBe(
      BOM +
        csv
          .replace('dish,orders,sales', '"Dish","Orders","Sales (AED)"')
          .replace('"12.5"', '"12.500"')
          .replace('"4"\r\n', '"4.000"\r\n')
          .replace('"7.25"', '"7.250"'),
    );
  });

  it.each([
    ['another number of columns', 'day,orders\r\n"2026-11-20","3"\r\n', 2],
    [
      'rows of unequal width',
      'day,orders,sales\r\n"2026-11-20","3"\r\n"2026-11-21","3","4","5"\r\n',
      2,
    ],
    ['unquoted values', 'day,orders,sales\r\n2026-11-20,3,4.5\r\n', 2],
    ['no final line break', 'day,orders,sales\r\n"2026-11-20","3","4.5"', 2],
    ['no header line', '"2026-11-20","3","4.5"', 2],
    ['nothing', '', 2],
  ])('with %s, only adds the byte-order mark', (_case, csv, digits) => {
    const { properties } = report('orders-per-day');

    expect(spreadsheetCsv(csv, properties, digits, EN)).toBe(BOM + csv);
  });

  it('follows a German owner’s Excel: `;`, decimal commas, German headers, dates and times', () => {
    const days = report('orders-per-day');
    const csv = days.apiCsv([{ data: { date: '2026-11-20', orderCount: 1234, revenue: -4.5 } }]);
    expect(sheetMarks('de-DE')).toEqual({ decimal: ',', separator: ';' });
    expect(sheetMarks('ar-AE')).toEqual({ decimal: '.', separator: ',' });
    expect(spreadsheetCsv(csv, days.properties, 2, DE)).toBe(
      `${BOM}"Tag";"Bestellungen";"Umsatz (AED)"\r\n"20.11.2026";"1234";"-4,50"\r\n`,
    );
    // An unknown currency: amounts as the API wrote them, with the locale's mark.
    expect(spreadsheetCsv(csv, days.properties, undefined, { ...DE, currency: undefined })).toBe(
      `${BOM}"Tag";"Bestellungen";"Umsatz"\r\n"20.11.2026";"1234";"-4,5"\r\n`,
    );
    const today = report('orders-today');
    const orders = today.apiCsv([
      {
        data: {
          id: 'O-1',
          placedAt: '2026-11-26T16:45:00+04:00',
          state: 'DELIVERED',
          itemCount: 2,
          total: 12,
        },
      },
    ]);
    expect(spreadsheetCsv(orders, today.properties, 2, DE).split('\r\n')[1]).toBe(
      '"O-1";"26.11.2026 16:45:00";"DELIVERED";"2";"12,00"',
    );
  });
});
