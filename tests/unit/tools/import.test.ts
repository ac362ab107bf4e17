/**
 * The pure parts of npm run import (docs/import.md): the command line, the --states file, order
 * and declaration lines checked with their exact messages, COPY's escaping and the progress output.
 */
import { jest } from '@jest/globals';
import { IMPORT_USAGE, parseImportArgs, readsOrders } from '../../../tools/db/import-args';
import { createProgress, formatBar } from '../../../tools/db/import-progress';
import {
  amount,
  checkDeclaration,
  checkOrder,
  IDENTITY_STATES,
  instant,
  NotUtf8,
  notUtf8,
  parseStateMap,
  type DeclarationContext,
  type OrderContext,
} from '../../../tools/db/import-validate';
import { copyText } from '../../../tools/db/import-write';

const CONTEXT: OrderContext = {
  restaurants: new Map([
    ['R-1001', { currency: 'AED', minorUnits: 2, platforms: new Set(['TB_AE', 'HS_AE']) }],
    ['R-1002', { currency: 'KWD', minorUnits: 3, platforms: new Set(['TB_KW']) }],
    ['R-3', { currency: 'JPY', minorUnits: 0, platforms: new Set(['TB_JP']) }],
  ]),
  states: IDENTITY_STATES,
};

const ORDER = {
  restaurantId: 'R-1002',
  platformId: 'TB_KW',
  orderId: 'A-981',
  placedAt: '2026-11-20T12:34:56+04:00',
  state: 'DELIVERED',
  total: '42.500',
  lines: [{ dish: 'Falafel wrap', quantity: 2, unitPrice: '12.000' }],
};

const line = (overrides: Record<string, unknown> = {}): string =>
  JSON.stringify({ ...ORDER, ...overrides });

describe('checkOrder', () => {
  it('accepts the documented example and keeps amounts as strings', () => {
    expect(checkOrder(line(), 1, CONTEXT)).toEqual({ value: { ...ORDER, state: 'DELIVERED' } });
  });

  /** An order line of one dish at 1.000 KWD, changed by `overrides`. */
  const tea = (overrides: Record<string, unknown> = {}) => ({
    dish: 'Tea',
    quantity: 1,
    unitPrice: '1.000',
    ...overrides,
  });

  it.each([
    [line({ total: '42.5' }), 'total: "42.5" has 1 decimal place; KWD amounts have 3'],
    [
      line({ total: 42.5 }),
      'total: 42.5 is not a decimal string (write amounts as strings, e.g. "0.000")',
    ],
    [line({ total: '-1.000' }), 'total: "-1.000" is negative'],
    [line({ total: '1e3' }), 'total: "1e3" is not a decimal amount'],
    [
      line({ total: '123456789012.000' }),
      'total: "123456789012.000" is too large (at most 11 digits before the point)',
    ],
    [line({ total: undefined }), 'total: missing'],
    [line({ restaurantId: 'R-9' }), 'restaurantId: R-9 is not declared (see --restaurants)'],
    [line({ restaurantId: 7 }), 'restaurantId: 7 is not a string'],
    [
      line({ platformId: 'HS_AE' }),
      'platformId: HS_AE is not declared for R-1002 (see --restaurants)',
    ],
    [line({ orderId: '' }), 'orderId: is empty'],
    [line({ orderId: 'x'.repeat(101) }), 'orderId: is longer than 100 characters'],
    [
      line({ placedAt: '2026-11-20T12:34:56' }),
      'placedAt: "2026-11-20T12:34:56" has no time-zone offset',
    ],
    [
      line({ placedAt: '2026-02-29T12:00:00Z' }),
      'placedAt: "2026-02-29T12:00:00Z" is not a valid date and time',
    ],
    [
      line({ placedAt: '20 Nov 2026' }),
      'placedAt: "20 Nov 2026" is not an ISO 8601 date-time (2026-11-20T12:34:56+04:00)',
    ],
    [
      line({ state: 'COMPLETED' }),
      'state: "COMPLETED" is not one of PLACED, ACCEPTED, DELIVERED, CANCELLED, REJECTED (map the brand\'s states with --states <file.json>)',
    ],
    [line({ lines: {} }), 'lines: {} is not an array'],
    [line({ lines: [tea({ quantity: 1.5 })] }), 'lines[0].quantity: 1.5 is not a positive integer'],
    [line({ lines: [tea({ dish: ' ' })] }), 'lines[0].dish: is empty'],
    [
      line({ lines: [tea({ unitPrice: '1.00' })] }),
      'lines[0].unitPrice: "1.00" has 2 decimal places; KWD amounts have 3',
    ],
    [line({ lines: [tea(), 5] }), 'lines[1]: 5 is not an object'],
    [line({ lines: [tea(), { dish: '\u3000\t' }] }), 'lines[1].dish: is empty'],
    [line({ lines: [tea(), { dish: 'Tea', quantity: 2 }] }), 'lines[1].unitPrice: missing'],
    [
      '{"restaurantId":',
      `not JSON: ${(() => {
        try {
          JSON.parse('{"restaurantId":');
        } catch (e) {
          return (e as Error).message;
        }
        return '';
      })()}`,
    ],
    ['[1, 2]', 'not JSON: [1,2] is not an object'],
  ])('refuses %s', (text, message) => {
    // Act / Assess
    expect(checkOrder(text, 7, CONTEXT)).toEqual({ error: `line 7: ${message}` });
  });

  it('names a number too large to be finite as such, not as null', () => {
    // Act
    const checked = checkOrder(line().replace('"total":"42.500"', '"total":1e309'), 7, CONTEXT);

    // Assess
    expect(checked).toEqual({
      error:
        'line 7: total: a non-finite number is not a decimal string (write amounts as strings, e.g. "0.000")',
    });
  });

  it('quotes a long value as an excerpt with its length: every refusal stays under 1 KB', () => {
    // Prepare: each field of the order, and of its line, given a huge value of each kind
    const huge = [
      'x'.repeat(1_000_000),
      '1'.repeat(1_000_000),
      '😀'.repeat(100),
      Array.from({ length: 100_000 }, (_, i) => i),
      Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${String(i)}`, i])),
    ];
    const lines = [...Object.keys(ORDER), 'extra'].flatMap((key) =>
      huge.flatMap((value) => [
        line({ [key]: value }),
        line({ lines: [tea({ [key === 'extra' ? 'dish' : key]: value })] }),
      ]),
    );

    // Act
    const refusals = lines
      .map((text) => checkOrder(text, 7, CONTEXT))
      .flatMap((checked) => ('error' in checked ? [checked.error] : []));

    // Assess
    expect(refusals.length).toBeGreaterThan(30);
    expect(refusals.filter((refusal) => Buffer.byteLength(refusal) > 1024)).toEqual([]);
    expect(refusals).toContain(
      `line 7: state: "${'x'.repeat(59)}… (1000002 characters) is not one of PLACED, ACCEPTED, DELIVERED, CANCELLED, REJECTED (map the brand's states with --states <file.json>)`,
    );
    // A line not UTF-8 names its field, cut the same way.
    const key = 'k'.repeat(100_000);
    const text = `{"${key}": "a\uFFFD"}`;
    expect(notUtf8(new NotUtf8(text, text.indexOf('\uFFFD'), 0xff), 7)).toBe(
      `line 7: ${'k'.repeat(60)}… (100000 characters): not UTF-8 (byte 0xFF); the file must be UTF-8`,
    );
    // An excerpt never ends on half a character.
    expect(
      refusals.filter((refusal) => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(refusal)),
    ).toEqual([]);
  });

  it('maps the brand states of a --states file, and names the file for one it does not map', () => {
    const parsed = parseStateMap('{"COMPLETED":"DELIVERED","VOIDED":"CANCELLED"}', 'states.json');
    if (!('map' in parsed)) throw new Error(parsed.error);
    const context = { ...CONTEXT, states: parsed.map };
    expect(checkOrder(line({ state: 'VOIDED' }), 1, context)).toMatchObject({
      value: { state: 'CANCELLED' },
    });
    expect(checkOrder(line({ state: 'DELIVERED' }), 2, context)).toEqual({
      error: 'line 2: state: "DELIVERED" is not mapped by states.json',
    });
  });
});

describe('amount and instant', () => {
  it('takes amounts with exactly the minor units, none for a currency without them', () => {
    expect(amount('100', 'total', 'JPY', 0)).toBe('100');
    expect(() => amount('100.5', 'total', 'JPY', 0)).toThrow(
      'total: "100.5" has 1 decimal place; JPY amounts have 0',
    );
    expect(amount('0.00', 'total', 'AED', 2)).toBe('0.00');
  });

  it.each([
    '2026-11-20T12:34:56Z',
    '2026-11-20T12:34:56.123456-03:30',
    '2026-11-20T12:34+04:00',
    '2024-02-29T00:00:00+0000',
  ])('takes %s', (value) => {
    expect(instant(value, 'placedAt')).toBe(value);
  });
});

describe('parseStateMap', () => {
  it.each([
    [
      '{"COMPLETED":"DONE"}',
      '--states s.json: "COMPLETED" maps to "DONE", which is not one of PLACED, ACCEPTED, DELIVERED, CANCELLED, REJECTED',
    ],
    ['["DELIVERED"]', '--states s.json: must be a JSON object mapping brand states to ours'],
    ['{}', '--states s.json: maps no state'],
  ])('refuses %s', (text, error) => {
    expect(parseStateMap(text, 's.json')).toEqual({ error });
  });
});

const DECLARATION_CONTEXT: DeclarationContext = {
  currencies: new Map([['AED', 2]]),
  timeZones: new Set(['Asia/Dubai', 'Asia/Kuwait']),
  platformIdentities: new Map([['TB_AE\u0000tb-1', 'R-1001']]),
};

/** A restaurant in a currency the database does not know yet. */
const SALMIYA = {
  restaurantId: 'R-2',
  name: 'Salmiya',
  timeZone: 'Asia/Kuwait',
  currency: 'KWD',
  minorUnits: 3,
  platforms: [{ platformId: 'TB_KW', platformRestaurantId: 'tb-2' }],
};

const declaration = (overrides: Record<string, unknown> = {}): string =>
  JSON.stringify({ ...SALMIYA, ...overrides });

describe('checkDeclaration', () => {
  it('accepts a restaurant with a new currency and its minor units, and a known one without', () => {
    expect(checkDeclaration(declaration(), 1, DECLARATION_CONTEXT)).toEqual({ value: SALMIYA });
    expect(
      checkDeclaration(
        declaration({ currency: 'AED', minorUnits: undefined }),
        1,
        DECLARATION_CONTEXT,
      ),
    ).toMatchObject({ value: { currency: 'AED', minorUnits: 2 } });
    // A new currency without minor units: ISO 4217's, as ICU knows them.
    expect(
      checkDeclaration(declaration({ minorUnits: undefined }), 1, DECLARATION_CONTEXT),
    ).toEqual({ value: SALMIYA });
    expect(
      checkDeclaration(
        declaration({ currency: 'JPY', minorUnits: undefined }),
        1,
        DECLARATION_CONTEXT,
      ),
    ).toMatchObject({ value: { currency: 'JPY', minorUnits: 0 } });
  });

  it.each([
    [
      { timeZone: 'Asia/Atlantis' },
      'timeZone: "Asia/Atlantis" is not an IANA time zone (e.g. "Asia/Dubai")',
    ],
    [{ currency: 'kwd' }, 'currency: "kwd" is not an ISO 4217 currency code (e.g. "AED")'],
    [{ currency: 'ABC' }, 'currency: "ABC" is not an ISO 4217 currency code (e.g. "AED")'],
    [{ currency: 'XXX' }, 'currency: "XXX" is not an ISO 4217 currency code (e.g. "AED")'],
    [{ minorUnits: 2 }, 'minorUnits: 2 disagrees with ISO 4217 as ICU knows it: KWD has 3'],
    [{ currency: 'AED', minorUnits: 3 }, 'minorUnits: AED has 2, not 3'],
    [{ minorUnits: 4 }, 'minorUnits: 4 is not an integer from 0 to 3'],
    [
      { platforms: [{ platformId: 'TB_AE', platformRestaurantId: 'tb-1' }] },
      "platforms[0].platformRestaurantId: tb-1 on TB_AE is already R-1001's",
    ],
    [
      { platforms: ['a', 'b'].map((id) => ({ platformId: 'TB_KW', platformRestaurantId: id })) },
      'platforms[1].platformId: TB_KW is declared twice',
    ],
    [{ name: undefined }, 'name: missing'],
  ])('refuses a declaration with %j', (overrides, error) => {
    // Act / Assess
    expect(checkDeclaration(declaration(overrides), 4, DECLARATION_CONTEXT)).toEqual({
      error: `line 4: ${error}`,
    });
  });
});

describe('parseImportArgs', () => {
  it('reads standard input by default', () => {
    const parsed = parseImportArgs([]);
    expect(parsed).toEqual({
      options: { file: undefined, restaurants: undefined, states: undefined, skipInvalid: false },
    });
    if ('options' in parsed) expect(readsOrders(parsed.options)).toBe(true);
  });

  it('reads every option, as two words or name=value; --restaurants alone reads no orders', () => {
    const argv = '--file=o.ndjson --restaurants r.ndjson --states s.json --skip-invalid';
    expect(parseImportArgs(argv.split(' '))).toEqual({
      options: { file: 'o.ndjson', restaurants: 'r.ndjson', states: 's.json', skipInvalid: true },
    });
    const parsed = parseImportArgs(['--restaurants', 'r.ndjson']);
    if ('options' in parsed) expect(readsOrders(parsed.options)).toBe(false);
  });

  it.each([
    [['--file'], "Option '--file <value>' argument missing"],
    [
      ['--file', '--skip-invalid'],
      "Option '--file' argument is ambiguous. Did you forget to specify the option argument for '--file'? To specify an option argument starting with a dash use '--file=-XYZ'.",
    ],
    [['--file='], '--file needs a value'],
    [['--file', 'a', '--file', 'b'], '--file is given twice'],
    [['--file=a', '--file', 'b'], '--file is given twice'],
    [['--skip-invalid=yes'], "Option '--skip-invalid' does not take an argument"],
    [
      ['orders.ndjson'],
      "Unexpected argument 'orders.ndjson'. This command does not take positional arguments",
    ],
    [['--restaurants', '-'], 'only one of --file and --restaurants can read standard input'],
    [['--states', '-'], '--states needs a file'],
  ])('refuses %j', (argv, error) => {
    expect(parseImportArgs(argv)).toEqual({ error });
  });

  it('refuses an unknown option, naming it on one line', () => {
    // Act / Assess
    expect(parseImportArgs(['--file', 'o.ndjson', '--dry-run'])).toEqual({
      error: "Unknown option '--dry-run'",
    });
  });

  it.each([[['--help']], [['-h']], [['--restaurants', '-', '--help']]])(
    'answers %j with its help, before checking the other options',
    (argv) => {
      // Arrange
      const help = jest.fn((): never => {
        throw new Error('help');
      });

      // Act / Assess
      expect(() => parseImportArgs(argv, help)).toThrow('help');
      expect(help).toHaveBeenCalledTimes(1);
    },
  );

  it('has a usage line', () => {
    expect(IMPORT_USAGE).toBe(
      'usage: npm run import -- [--file orders.ndjson|-] [--restaurants restaurants.ndjson] [--states states.json] [--skip-invalid]',
    );
  });
});

describe('copyText', () => {
  it('escapes backslash, tab, newline and carriage return', () => {
    expect(copyText('a\\b\tc\nd\re')).toBe('a\\\\b\\tc\\nd\\re');
    expect(copyText('plain')).toBe('plain');
  });
});

describe('progress', () => {
  it('draws a bar with count, percent and rate', () => {
    expect(formatBar(500, 50, 100, 1000)).toBe(
      '[############------------] 500 orders 50% 500 orders/s',
    );
    expect(formatBar(500, 50, undefined, 2000)).toBe('500 orders read, 250 orders/s');
  });

  it('redraws in place on a terminal and writes plain lines every 100,000 orders otherwise', () => {
    let clock = 0;
    let tty = '';
    const bar = createProgress({ isTTY: true, write: (t) => (tty += t) }, 100, () => clock);
    clock = 200;
    bar.update(10, 10);
    bar.line('line 3: total: missing');
    bar.end();
    expect(tty).toBe(
      '\r[##----------------------] 10 orders 10% 50 orders/s\u001b[K' +
        '\r\u001b[Kline 3: total: missing\n' +
        '\r[##----------------------] 10 orders 10% 50 orders/s\u001b[K' +
        '\r\u001b[K',
    );
    let plain = '';
    const lines = createProgress(
      { isTTY: false, write: (t) => (plain += t) },
      undefined,
      () => clock,
    );
    clock = 1200;
    lines.update(99_999, 0);
    lines.update(100_000, 0);
    lines.end();
    expect(plain).toBe('progress: 100000 orders read, 100000 orders/s\n');
  });
});
