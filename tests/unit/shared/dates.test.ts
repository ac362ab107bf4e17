import { daysInRange, parseIsoDate, type IsoDate } from '../../../shared/dates';

const d = (value: string) => value as IsoDate;

describe('parseIsoDate', () => {
  it.each(['2024-02-29', '2023-12-31', '2026-01-01', '0001-01-01'])(
    'accepts the calendar date %s',
    (value) => {
      expect(parseIsoDate(value)).toBe(value);
    },
  );

  it.each([
    '2024-02-30',
    '2023-02-29',
    '2024-13-01',
    '2024-00-10',
    '2024-1-5',
    '24-01-05',
    '2024-01-05T00:00:00Z',
    ' 2024-01-05',
    '2024/01/05',
    '',
    'today',
    '２０２４-01-05',
    '0000-01-01',
  ])('refuses %j, which is not a strict YYYY-MM-DD calendar date', (value) => {
    expect(parseIsoDate(value)).toBeUndefined();
  });
});

describe('daysInRange', () => {
  it('counts both ends of a range', () => {
    expect(daysInRange({ from: d('2024-01-01'), to: d('2024-01-01') })).toBe(1);
    expect(daysInRange({ from: d('2024-01-01'), to: d('2024-01-31') })).toBe(31);
    expect(daysInRange({ from: d('2024-02-01'), to: d('2024-03-02') })).toBe(31);
  });
});
