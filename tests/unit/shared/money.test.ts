import { toAmount } from '../../../shared/money';

describe('toAmount', () => {
  it.each([
    ['0', 0],
    ['0.00', 0],
    ['12', 12],
    ['12.50', 12.5],
    ['1234.567', 1234.567],
    ['-3.25', -3.25],
    ['99999999.99', 99999999.99],
  ])('reads the decimal string %j as the number %d', (decimal, expected) => {
    // Act / Assess
    expect(toAmount(decimal)).toBe(expected);
  });

  it.each(['', '   ', 'NaN', 'abc', '12,50', 'Infinity', '-Infinity', '1e400'])(
    'refuses %j, which is not a finite decimal, with a TypeError',
    (decimal) => {
      // Act / Assess
      const act = () => toAmount(decimal);
      expect(act).toThrow(TypeError);
      expect(act).toThrow('amount is not a finite decimal');
    },
  );
});

describe('toAmount refuses number forms PostgreSQL never sends', () => {
  it.each(['0x10', '1e3', '+1', '.5', '1.', ' 1'])('refuses %j', (value) => {
    expect(() => toAmount(value)).toThrow(TypeError);
  });
});
