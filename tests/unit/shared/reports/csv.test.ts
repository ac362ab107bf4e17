import { csvFileName, csvResult, reportFormat, toCsv } from '../../../../shared/reports/csv';
import type { PropertyDefinition } from '../../../../shared/reports/report';
import { portalErrorOf, validation } from '../../../support/portal-errors';

const NAME: readonly PropertyDefinition[] = [{ key: 'name', name: 'Dish', type: 'string' }];
const DAY_PROPERTIES: readonly PropertyDefinition[] = [
  { key: 'date', name: 'Day', type: 'string', unit: 'DATE', csvName: 'day' },
  { key: 'orderCount', name: 'Orders', type: 'integer', csvName: 'orders' },
  { key: 'revenue', name: 'Sales', type: 'number', unit: 'CURRENCY', csvName: 'sales' },
];

describe('toCsv', () => {
  it('writes the comparison CSV of spec 2.4: its header, every value double-quoted, CRLF lines', () => {
    const rows = [
      {
        data: { date: '2026-11-01', orderCount: 3, revenue: 41.5 },
        compare: { date: '2026-10-25', orderCount: 0, revenue: 0 },
      },
      { data: { date: '2026-11-02', orderCount: 12, revenue: 1234.75 } },
    ];

    const csv = toCsv(DAY_PROPERTIES, rows);

    expect(csv).toBe(
      'day,orders,sales,day_comparison,orders_comparison,sales_comparison\r\n' +
        '"2026-11-01","3","41.5","2026-10-25","0","0"\r\n' +
        '"2026-11-02","12","1234.75","","",""\r\n',
    );
  });

  it('writes only the declared columns when no row has compare values', () => {
    const csv = toCsv(DAY_PROPERTIES, [
      { data: { date: '2026-11-01', orderCount: 1, revenue: 2 } },
    ]);

    expect(csv).toBe('day,orders,sales\r\n"2026-11-01","1","2"\r\n');
  });

  it('uses the key as column name when a property declares no csvName', () => {
    expect(toCsv(NAME, [])).toBe('name\r\n');
  });

  it('doubles inner quotes and keeps commas and line breaks inside the quoted cell (RFC 4180)', () => {
    const csv = toCsv(NAME, [{ data: { name: '"Spezial" Teller, groß\nzwei' } }]);

    expect(csv).toBe('name\r\n"""Spezial"" Teller, groß\nzwei"\r\n');
  });

  /** The CSV of one text column `name` holding this value. */
  const nameCsv = (name: string): string => toCsv(NAME, [{ data: { name } }]);

  it.each(['=HYPERLINK("http://x")', '+1+1', '-2+3', '@SUM(A1)', '\tcmd', '\rcmd', '\t', '\r'])(
    'neutralises the text cell %j that a spreadsheet would run as a formula',
    (name) => {
      expect(nameCsv(name)).toBe(`name\r\n"'${name.replaceAll('"', '""')}"\r\n`);
    },
  );

  it.each([
    ['a line feed', '\n=1+1'],
    ['a carriage return', '\r=1+1'],
    ['a tab', '\t+1'],
    ['a space', ' =1+1'],
    ['spaces', '   -2+3'],
    ['a vertical tab', '\v@SUM(A1)'],
    ['a form feed', '\f=1'],
    ['a no-break space', '\u00a0=1+1'],
    ['a narrow no-break space', '\u202f=1'],
    ['an ideographic space', '\u3000=1'],
    ['an en quad', '\u2000=1'],
    ['a line separator', '\u2028=1'],
    ['a byte order mark', '\ufeff=1'],
    ['a zero-width space', '\u200b=1'],
    ['a word joiner', '\u2060@A1'],
    ['a left-to-right mark', '\u200e=1'],
    ['a left-to-right embedding', '\u202a=1'],
    ['a left-to-right isolate', '\u2066=1'],
    ['an Arabic letter mark', '\u061c=1'],
    ['a soft hyphen', '\u00ad=1'],
    ['mixed blanks', ' \n\u00a0\t=1'],
    ['a space, then a fullwidth equals sign', ' \uff1d1'],
  ])('neutralises a text cell whose formula character follows %s', (_name, name) => {
    expect(nameCsv(name)).toBe(`name\r\n"'${name}"\r\n`);
  });

  it.each([
    ['a fullwidth equals sign', '\uff1d1+1'],
    ['a fullwidth plus sign', '\uff0b1'],
    ['a fullwidth hyphen-minus', '\uff0d1'],
    ['a fullwidth commercial at', '\uff20SUM(A1)'],
    ['a small equals sign', '\ufe661'],
  ])(
    'neutralises a text cell starting with %s, which NFKC turns into = + - or @',
    (_name, name) => {
      expect(nameCsv(name)).toBe(`name\r\n"'${name}"\r\n`);
    },
  );

  it.each([' Teller', '\nzwei', '\u00a0x', ' 1', '\uff21', '\u2212 1', 'a=b', 'x-1'])(
    'keeps the text cell %j as it is: no formula character after its leading blanks',
    (name) => {
      expect(nameCsv(name)).toBe(`name\r\n"${name}"\r\n`);
    },
  );

  it('neutralises, of every character of the Basic Multilingual Plane after a space, exactly = + - @ and those NFKC turns into them', () => {
    const characters = Array.from({ length: 0x10000 }, (_, code) => String.fromCharCode(code));

    const neutralised = characters
      .filter((character) => !/^[\s\p{Cf}]$/u.test(character))
      .filter((character) => nameCsv(` ${character}1`).startsWith(`name\r\n"'`));

    expect(neutralised.join(' ')).toBe('+ - = @ ⁺ ⁼ ₊ ₌ ⩵ ⩶ ﬩ ﹢ ﹣ ﹦ ﹫ ＋ － ＝ ＠');
  });

  it('keeps numbers as numbers, negative ones too: a number cell is never neutralised', () => {
    const csv = toCsv(
      [{ key: 'revenue', name: 'Sales', type: 'number' }],
      [{ data: { revenue: -12.5 } }, { data: { revenue: -0.01 } }, { data: { revenue: 1e21 } }],
    );

    expect(csv).toBe('revenue\r\n"-12.5"\r\n"-0.01"\r\n"1e+21"\r\n');
  });
});

describe('csvFileName and csvResult', () => {
  it('joins safe words and replaces anything a header or file system could misread', () => {
    expect(csvFileName(['orders-per-day', 'R-1001', '2026-11-01', '2026-11-07'])).toBe(
      'orders-per-day_R-1001_2026-11-01_2026-11-07.csv',
    );
    expect(csvFileName(['dishes', 'a"b/c\\d; e\r\n'])).toBe('dishes_a-b-c-d-e-.csv');
  });

  it('answers 200 text/csv in UTF-8 as an attachment with the file name', () => {
    expect(csvResult('x\r\n', 'r.csv')).toEqual({
      statusCode: 200,
      headers: {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': 'attachment; filename="r.csv"',
      },
      body: 'x\r\n',
    });
  });
});

describe('reportFormat', () => {
  it.each([
    [[], [], 'json'],
    [['json'], ['text/csv'], 'json'],
    [['csv'], [], 'csv'],
    [[], ['text/csv'], 'csv'],
    [[], ['application/json, text/csv;q=0.5'], 'json'],
    [[], ['application/json;q=0.5, text/csv'], 'csv'],
    [[], ['text/csv;q=0'], 'json'],
    [[], ['text/csv; q=0.0'], 'json'],
    [[], ['text/csv;q=0.001'], 'csv'],
    [[], ['text/csv;q=0.5, application/json;q=0.5'], 'csv'],
    [[], ['application/json;q=0.5, text/csv;q=0.5'], 'json'],
    [[], ['text/html,application/xhtml+xml,*/*;q=0.8'], 'json'],
    [[], ['text/csv;q=0.9', 'application/json;q=0.1'], 'csv'],
    [[], ['TEXT/CSV'], 'csv'],
    [[], ['application/json'], 'json'],
    [[], ['text/csvx'], 'json'],
    [[''], [], 'json'],
  ] as const)('format %j with Accept %j answers %s', (format, accept, expected) => {
    expect(reportFormat(format, accept)).toBe(expected);
  });

  it.each([
    // charset=utf-8 is what is sent: in any case, quoted or not, it names our CSV (or JSON).
    ['text/csv;charset=utf-8', 'csv'],
    ['text/csv; charset="UTF-8"', 'csv'],
    ['text/csv;charset=utf-8;q=0', 'json'],
    ['application/json;charset=utf-8, text/csv;q=0.5', 'json'],
    // A more specific range outweighs a bare one.
    ['text/csv;q=0, text/csv;charset=utf-8', 'csv'],
    // Other parameters do not change what is sent, a comma or semicolon quoted in one included.
    ['text/csv;header=present', 'csv'],
    ['text/csv;header=present;charset=utf-8;q=0.9, application/json;q=0.5', 'csv'],
    ['text/csv;foo="a,b;c", application/json;q=0.9', 'csv'],
    // Only UTF-8 is sent: a range naming another charset matches nothing of ours.
    ['text/csv;charset=iso-8859-1', 'json'],
    ['text/csv;charset=iso-8859-1, application/json;q=0.1', 'json'],
    ['text/csv;charset=iso-8859-1, text/*;q=0.5', 'csv'],
  ] as const)('Accept %j (media-type parameters) answers %s', (accept, expected) => {
    expect(reportFormat([], [accept])).toBe(expected);
  });

  it.each(['1.5', '-1', '0.1234', '1.001', 'abc', '"0.5"', '', '0.5;q=0.9'])(
    'ignores an element whose q-value is q=%s, as invalid (RFC 9110 qvalue)',
    (q) => {
      expect(reportFormat([], [`text/csv;q=${q}`])).toBe('json');
      expect(reportFormat([], [`text/csv;q=${q}, application/json;q=0.1`])).toBe('json');
      expect(reportFormat([], [`application/json;q=${q}, text/csv;q=0.1`])).toBe('csv');
    },
  );

  it.each(['0', '0.', '0.001', '0.999', '1', '1.', '1.000'])(
    'reads q=%s, a valid q-value, as its weight',
    (q) => {
      const expected = Number(q) > 0.5 ? 'csv' : 'json';

      expect(reportFormat([], [`application/json;q=0.5, text/csv;Q=${q}`])).toBe(expected);
    },
  );

  it.each([
    [['xml'], 'INVALID_VALUE', 'format must be json or csv'],
    [['csv', 'csv'], 'FIELD_REPEATED', 'format must be given once'],
  ] as const)('refuses format %j with 400 %s', (format, code, message) => {
    const error = portalErrorOf(() => reportFormat(format, []));

    expect(error.statusCode).toBe(400);
    expect(error.toBody()).toEqual(validation({ field: 'format', code, message }));
  });
});
