import fc from 'fast-check';
import { PortalError, type ErrorBody, type ValidationEntry } from '../../../../shared/errors';
import { parseDayRange } from '../../../../shared/reports/parameters';
import { notGiven, readerOf, type Query } from '../../../support/parameters';
import { emptyField, portalErrorOf, validation } from '../../../support/portal-errors';

const WITH_COMPARE = { compare: true };
const WITHOUT_COMPARE = { compare: false };

const OUT_OF_RANGE: ErrorBody = {
  state: 'ERROR',
  code: 'OUT_OF_RANGE',
  message: 'Only 31 days can be selected',
};

const invalidDate = (field: string): ValidationEntry => ({
  field,
  code: 'INVALID_DATE',
  message: `${field} must be a calendar date in YYYY-MM-DD form`,
});

describe('parseDayRange', () => {
  it('reads a valid range', () => {
    // Prepare
    const read = readerOf({ from: '2024-01-01', to: '2024-01-07' });

    // Act
    const query = parseDayRange(read, WITH_COMPARE);

    // Assess
    expect(query).toEqual({ range: { from: '2024-01-01', to: '2024-01-07' } });
    expect(query).not.toHaveProperty('compare');
  });

  it('reads a range of a single day', () => {
    // Act
    const query = parseDayRange(readerOf({ from: '2024-02-29', to: '2024-02-29' }), WITH_COMPARE);

    // Assess
    expect(query).toEqual({ range: { from: '2024-02-29', to: '2024-02-29' } });
  });

  describe.each(['from', 'to'])('when %s is not given', (field) => {
    const other: Query = field === 'from' ? { to: '2024-01-07' } : { from: '2024-01-01' };

    it.each(notGiven(field))(
      `answers VALIDATION_ERROR with one FIELD_CANNOT_BE_EMPTY entry (%s)`,
      (_case, given) => {
        // Prepare
        const read = readerOf({ ...other, ...given });

        // Act
        const error = portalErrorOf(() => parseDayRange(read, WITH_COMPARE));

        // Assess
        expect(error.statusCode).toBe(400);
        expect(error.toBody()).toEqual(validation(emptyField(field)));
      },
    );
  });

  it('answers one entry per missing field, from before to', () => {
    // Act
    const error = portalErrorOf(() => parseDayRange(readerOf({}), WITH_COMPARE));

    // Assess
    expect(error.statusCode).toBe(400);
    expect(error.toBody()).toEqual(validation(emptyField('from'), emptyField('to')));
  });

  it('answers one entry per empty field when both are empty', () => {
    // Act
    const error = portalErrorOf(() =>
      parseDayRange(readerOf({ from: '', to: ' ' }), WITHOUT_COMPARE),
    );

    // Assess
    expect(error.toBody()).toEqual(validation(emptyField('from'), emptyField('to')));
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
    // Act
    const error = portalErrorOf(() =>
      parseDayRange(readerOf({ from: value, to: '2024-01-31' }), WITH_COMPARE),
    );

    // Assess
    expect(error.statusCode).toBe(400);
    expect(error.toBody()).toEqual(validation(invalidDate('from')));
  });

  it('refuses an impossible to date as INVALID_DATE', () => {
    // Act
    const error = portalErrorOf(() =>
      parseDayRange(readerOf({ from: '2024-02-01', to: '2024-02-30' }), WITH_COMPARE),
    );

    // Assess
    expect(error.toBody()).toEqual(validation(invalidDate('to')));
  });

  it.each([
    ['two dates', ['2024-01-01', '2024-01-02']],
    ['the same date twice', ['2024-01-01', '2024-01-01']],
    ['two empty values', ['', '']],
  ])('refuses a repeated from (%s) as FIELD_REPEATED', (_case, values) => {
    // Act
    const error = portalErrorOf(() =>
      parseDayRange(readerOf({ from: values, to: '2024-01-07' }), WITH_COMPARE),
    );

    // Assess
    expect(error.toBody()).toEqual(
      validation({ field: 'from', code: 'FIELD_REPEATED', message: 'from must be given once' }),
    );
  });

  it('refuses a range whose from is after its to as INVALID_RANGE', () => {
    // Act
    const error = portalErrorOf(() =>
      parseDayRange(readerOf({ from: '2024-01-08', to: '2024-01-07' }), WITH_COMPARE),
    );

    // Assess
    expect(error.statusCode).toBe(400);
    expect(error.toBody()).toEqual(
      validation({ field: 'from', code: 'INVALID_RANGE', message: 'from must not be after to' }),
    );
  });

  it.each([
    ['2024-01-01', '2024-01-31'],
    ['2024-02-01', '2024-03-02'],
    ['2023-12-15', '2024-01-14'],
  ])('accepts %s to %s, 31 days with both ends included', (from, to) => {
    // Act
    const query = parseDayRange(readerOf({ from, to }), WITH_COMPARE);

    // Assess
    expect(query).toEqual({ range: { from, to } });
  });

  it.each([
    ['2024-01-01', '2024-02-01'],
    ['2024-02-01', '2024-03-03'],
    ['2023-01-01', '2024-01-01'],
  ])('refuses %s to %s, longer than 31 days, as OUT_OF_RANGE', (from, to) => {
    // Act
    const error = portalErrorOf(() => parseDayRange(readerOf({ from, to }), WITH_COMPARE));

    // Assess
    expect(error.statusCode).toBe(400);
    expect(error.toBody()).toEqual(OUT_OF_RANGE);
  });

  describe('compare[from] and compare[to]', () => {
    const RANGE = { from: '2024-01-08', to: '2024-01-14' };
    /** RANGE with this compare[from] and compare[to]. */
    const withCompare = (from: string, to: string) =>
      readerOf({ ...RANGE, 'compare[from]': from, 'compare[to]': to });

    it('reads a compare range given as a pair', () => {
      // Prepare
      const read = withCompare('2024-01-01', '2024-01-07');

      // Act
      const query = parseDayRange(read, WITH_COMPARE);

      // Assess
      expect(query).toEqual({
        range: { from: '2024-01-08', to: '2024-01-14' },
        compare: { from: '2024-01-01', to: '2024-01-07' },
      });
    });

    it.each([
      ['compare[from]', 'compare[to]'],
      ['compare[to]', 'compare[from]'],
    ])('requires %s when %s is given', (missing, given) => {
      // Prepare
      const read = readerOf({ ...RANGE, [given]: '2024-01-01' });

      // Act
      const error = portalErrorOf(() => parseDayRange(read, WITH_COMPARE));

      // Assess
      expect(error.toBody()).toEqual(
        validation({
          field: missing,
          code: 'FIELD_REQUIRED_WITH',
          message: `${missing} is required when ${given} is given`,
        }),
      );
    });

    it('refuses a compare range longer than 31 days as OUT_OF_RANGE', () => {
      // Prepare
      const read = withCompare('2023-12-01', '2024-01-01');

      // Act
      const error = portalErrorOf(() => parseDayRange(read, WITH_COMPARE));

      // Assess
      expect(error.statusCode).toBe(400);
      expect(error.toBody()).toEqual(OUT_OF_RANGE);
    });

    it('accepts a compare range of exactly 31 days', () => {
      // Prepare
      const read = withCompare('2023-12-01', '2023-12-31');

      // Act
      const query = parseDayRange(read, WITH_COMPARE);

      // Assess
      expect(query.compare).toEqual({ from: '2023-12-01', to: '2023-12-31' });
    });

    it('refuses a reversed compare range as INVALID_RANGE', () => {
      // Prepare
      const read = withCompare('2024-01-07', '2024-01-01');

      // Act
      const error = portalErrorOf(() => parseDayRange(read, WITH_COMPARE));

      // Assess
      expect(error.toBody()).toEqual(
        validation({
          field: 'compare[from]',
          code: 'INVALID_RANGE',
          message: 'compare[from] must not be after compare[to]',
        }),
      );
    });

    it('refuses a malformed compare date as INVALID_DATE', () => {
      // Prepare
      const read = withCompare('2024-01-01', '2024-1-7');

      // Act
      const error = portalErrorOf(() => parseDayRange(read, WITH_COMPARE));

      // Assess
      expect(error.toBody()).toEqual(validation(invalidDate('compare[to]')));
    });

    it('treats an empty compare pair as no compare range', () => {
      // Prepare
      const read = withCompare('', ' ');

      // Act
      const query = parseDayRange(read, WITH_COMPARE);

      // Assess
      expect(query).toEqual({ range: RANGE });
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
      const query = parseDayRange((name) => {
        asked.push(name);
        return read(name);
      }, WITHOUT_COMPARE);

      // Assess
      expect(query).toEqual({ range: RANGE });
      expect(asked).toEqual(['from', 'to']);
    });

    it('reports the range errors and the compare errors together', () => {
      // Prepare
      const read = readerOf({ to: '2024-01-14', 'compare[to]': '2024-01-07' });

      // Act
      const error = portalErrorOf(() => parseDayRange(read, WITH_COMPARE));

      // Assess
      expect(error.toBody()).toEqual(
        validation(emptyField('from'), {
          field: 'compare[from]',
          code: 'FIELD_REQUIRED_WITH',
          message: 'compare[from] is required when compare[to] is given',
        }),
      );
    });
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
