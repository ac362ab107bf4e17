import fc from 'fast-check';
import { PortalError, type ErrorBody, type ValidationEntry } from '../../../../shared/errors';
import { parseDayRange } from '../../../../shared/reports/parameters';
import { notGiven, readerOf, type Query } from '../../../support/parameters';
import {
  BODIES,
  emptyField,
  portalErrorOf,
  repeatedField,
  validation,
} from '../../../support/portal-errors';

const invalidDate = (field: string): ValidationEntry => ({
  field,
  code: 'INVALID_DATE',
  message: `${field} must be a calendar date in YYYY-MM-DD form`,
});
const RANGE = { from: '2024-01-08', to: '2024-01-14' };
/** RANGE with this compare[from] and compare[to]. */
const withCompare = (from: string, to: string): Query => ({
  ...RANGE,
  'compare[from]': from,
  'compare[to]': to,
});
/** The status and body of the refusal of `query`. */
const refusal = (query: Query, compare = true) => {
  const error = portalErrorOf(() => parseDayRange(readerOf(query), { compare }));
  return { status: error.statusCode, body: error.toBody() };
};

describe('parseDayRange', () => {
  it.each([
    ['2024-01-01', '2024-01-07'],
    ['2024-02-29', '2024-02-29'],
    ['2024-01-01', '2024-01-31'],
    ['2024-02-01', '2024-03-02'],
    ['2023-12-15', '2024-01-14'],
  ])('reads %s to %s, a range of up to 31 days with both ends included', (from, to) => {
    // Act / Assess
    expect(parseDayRange(readerOf({ from, to }), { compare: true })).toStrictEqual({
      range: { from, to },
    });
  });

  it.each([
    ['a compare range given as a pair', '2024-01-01', '2024-01-07'],
    ['a compare range of exactly 31 days', '2023-12-01', '2023-12-31'],
  ])('reads %s', (_case, from, to) => {
    // Act / Assess
    expect(parseDayRange(readerOf(withCompare(from, to)), { compare: true })).toStrictEqual({
      range: RANGE,
      compare: { from, to },
    });
  });

  it('treats an empty compare pair as no compare range', () => {
    // Act / Assess
    expect(parseDayRange(readerOf(withCompare('', ' ')), { compare: true })).toStrictEqual({
      range: RANGE,
    });
  });

  describe.each(['from', 'to'])('when %s is not given', (field) => {
    const other: Query = field === 'from' ? { to: '2024-01-07' } : { from: '2024-01-01' };

    it.each(notGiven(field))(
      `answers VALIDATION_ERROR with one FIELD_CANNOT_BE_EMPTY entry (%s)`,
      (_case, given) => {
        // Act / Assess
        expect(refusal({ ...other, ...given })).toEqual({
          status: 400,
          body: validation(emptyField(field)),
        });
      },
    );
  });

  it.each([
    '2024-02-30',
    '2023-02-29',
    '2024-1-5',
    '2024-01-5',
    '2024-13-01',
    '24-01-05',
    '2024/01/05',
    '2024-01-05T00:00:00Z',
    ' 2024-01-05',
    'today',
  ])('refuses from=%j as INVALID_DATE', (value) => {
    // Act / Assess
    expect(refusal({ from: value, to: '2024-01-31' })).toEqual({
      status: 400,
      body: validation(invalidDate('from')),
    });
  });

  it.each([
    ['two dates', ['2024-01-01', '2024-01-02']],
    ['the same date twice', ['2024-01-01', '2024-01-01']],
    ['two empty values', ['', '']],
  ])('refuses a repeated from (%s) as FIELD_REPEATED', (_case, values) => {
    // Act / Assess
    expect(refusal({ from: values, to: '2024-01-07' })).toEqual({
      status: 400,
      body: validation(repeatedField('from')),
    });
  });

  it.each([
    ['2024-01-01', '2024-02-01'],
    ['2024-02-01', '2024-03-03'],
    ['2023-01-01', '2024-01-01'],
  ])('refuses %s to %s, longer than 31 days, as OUT_OF_RANGE', (from, to) => {
    // Act / Assess
    expect(refusal({ from, to })).toEqual({ status: 400, body: BODIES.daysOutOfRange });
  });

  it.each<[string, Query, ErrorBody]>([
    [
      'one entry per missing field, from before to',
      {},
      validation(emptyField('from'), emptyField('to')),
    ],
    [
      'an impossible to date as INVALID_DATE',
      { from: '2024-02-01', to: '2024-02-30' },
      validation(invalidDate('to')),
    ],
    [
      'a range whose from is after its to as INVALID_RANGE',
      { from: '2024-01-08', to: '2024-01-07' },
      validation({ field: 'from', code: 'INVALID_RANGE', message: 'from must not be after to' }),
    ],
    [
      'a compare range longer than 31 days as OUT_OF_RANGE',
      withCompare('2023-12-01', '2024-01-01'),
      BODIES.daysOutOfRange,
    ],
    [
      'a reversed compare range as INVALID_RANGE',
      withCompare('2024-01-07', '2024-01-01'),
      validation({
        field: 'compare[from]',
        code: 'INVALID_RANGE',
        message: 'compare[from] must not be after compare[to]',
      }),
    ],
    [
      'a malformed compare date as INVALID_DATE',
      withCompare('2024-01-01', '2024-1-7'),
      validation(invalidDate('compare[to]')),
    ],
    [
      'the range errors and the compare errors together',
      { to: '2024-01-14', 'compare[to]': '2024-01-07' },
      validation(emptyField('from'), {
        field: 'compare[from]',
        code: 'FIELD_REQUIRED_WITH',
        message: 'compare[from] is required when compare[to] is given',
      }),
    ],
    ...[
      ['compare[from]', 'compare[to]'],
      ['compare[to]', 'compare[from]'],
    ].map(([missing = '', given = '']): [string, Query, ErrorBody] => [
      `${missing} missing when ${given} is given as FIELD_REQUIRED_WITH`,
      { ...RANGE, [given]: '2024-01-01' },
      validation({
        field: missing,
        code: 'FIELD_REQUIRED_WITH',
        message: `${missing} is required when ${given} is given`,
      }),
    ]),
  ])('refuses %s', (_case, query, body) => {
    // Act / Assess
    expect(refusal(query)).toEqual({ status: 400, body });
  });

  it('answers one entry per empty field when both are empty, for a report without compare', () => {
    // Act / Assess
    expect(refusal({ from: '', to: ' ' }, false).body).toEqual(
      validation(emptyField('from'), emptyField('to')),
    );
  });

  it('ignores compare parameters, even malformed ones, for a report without compare', () => {
    // Prepare
    const asked: string[] = [];
    const read = readerOf({
      ...RANGE,
      'compare[from]': ['2024-02-30', 'x'],
      'compare[to]': '2023-01-01',
    });

    // Act
    const query = parseDayRange(
      (name) => {
        asked.push(name);
        return read(name);
      },
      { compare: false },
    );

    // Assess
    expect(query).toEqual({ range: RANGE });
    expect(asked).toEqual(['from', 'to']);
  });

  it('answers any input with a query or a 400 PortalError, never anything else', () => {
    // Prepare
    const isoDate = fc
      .date({ min: new Date('1900-01-01'), max: new Date('2100-12-31'), noInvalidDate: true })
      .map((date) => date.toISOString().slice(0, 10));
    const value = fc.oneof(
      isoDate,
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('', ' ', '2024-02-30'),
    );
    const values = fc.oneof(
      { weight: 4, arbitrary: value.map((v) => [v]) },
      { weight: 1, arbitrary: fc.array(value, { maxLength: 3 }) },
    );
    const params = fc.record({
      from: values,
      to: values,
      'compare[from]': values,
      'compare[to]': values,
    });

    // Act, Assess
    fc.assert(
      fc.property(params, fc.boolean(), (sent, compare) => {
        try {
          const query = parseDayRange(readerOf(sent), { compare });
          expect(query.range.from <= query.range.to).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(PortalError);
          expect((error as PortalError).statusCode).toBe(400);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
