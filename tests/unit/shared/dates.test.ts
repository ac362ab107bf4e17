import { dayNumber, daysInRange, parseIsoDate, type IsoDate } from '../../../shared/dates';

const d = (value: string) => value as IsoDate;
const range = (from: string, to: string) => ({ from: d(from), to: d(to) });

describe('parseIsoDate', () => {
  it.each([
    '2024-02-29',
    '2000-02-29',
    '2023-12-31',
    '2024-04-30',
    '2026-01-01',
    '0001-01-01',
    '9999-12-31',
  ])('accepts the calendar date %s', (value) => {
    expect(parseIsoDate(value)).toBe(value);
  });

  it.each([
    ['a 30 February', '2024-02-30'],
    ['a 29 February outside a leap year', '2023-02-29'],
    ['a 29 February of a century year not divisible by 400', '1900-02-29'],
    ['a 31st of a 30-day month', '2024-04-31'],
    ['month 13', '2024-13-01'],
    ['month 00', '2024-00-10'],
    ['day 00', '2024-01-00'],
    ['day 32', '2024-01-32'],
    ['one-digit month and day', '2024-1-5'],
    ['a two-digit year', '24-01-05'],
    ['a six-digit year', '+002024-01-05'],
    ['a year and month only', '2024-01'],
    ['a time of day', '2024-01-05T00:00:00Z'],
    ['a leading space', ' 2024-01-05'],
    ['a trailing newline', '2024-01-05\n'],
    ['slashes', '2024/01/05'],
    ['an empty string', ''],
    ['a word', 'today'],
    ['full-width digits', '２０２４-01-05'],
    ['year 0000, which PostgreSQL does not read in this form', '0000-01-01'],
  ])('refuses %s (%j)', (_what, value) => {
    expect(parseIsoDate(value)).toBeUndefined();
  });
});

describe('dayNumber', () => {
  it('counts days from 1970-01-01, negative before it', () => {
    expect(
      ['1970-01-01', '1970-01-02', '1969-12-31', '2000-03-01', '0000-01-01'].map(dayNumber),
    ).toEqual([0, 1, -1, 11_017, -719_528]);
  });

  it.each(['2024-02-30', '2024-1-5', '', '2024-01-05T00:00:00Z'])(
    'is NaN for %j, which is no strict date',
    (value) => {
      expect(dayNumber(value)).toBeNaN();
    },
  );
});

describe('daysInRange', () => {
  it('counts both ends of a range', () => {
    expect(daysInRange(range('2024-01-01', '2024-01-01'))).toBe(1);
    expect(daysInRange(range('2024-01-01', '2024-01-31'))).toBe(31);
    expect(daysInRange(range('2024-01-01', '2024-12-31'))).toBe(366);
    expect(daysInRange(range('2023-01-01', '2023-12-31'))).toBe(365);
  });

  it('crosses month ends and February in leap and common years', () => {
    expect(daysInRange(range('2024-02-01', '2024-03-02'))).toBe(31);
    expect(daysInRange(range('2024-02-28', '2024-03-01'))).toBe(3);
    expect(daysInRange(range('2023-02-28', '2023-03-01'))).toBe(2);
    expect(daysInRange(range('2000-02-28', '2000-03-01'))).toBe(3);
    expect(daysInRange(range('2100-02-28', '2100-03-01'))).toBe(2);
    expect(daysInRange(range('2024-04-30', '2024-05-01'))).toBe(2);
    expect(daysInRange(range('2023-12-31', '2024-01-01'))).toBe(2);
  });

  it('is zero or negative when the range ends before it starts', () => {
    expect(daysInRange(range('2024-01-02', '2024-01-01'))).toBe(0);
    expect(daysInRange(range('2024-03-01', '2024-02-01'))).toBe(-28);
  });

  it.each(['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Dubai'])(
    'counts whole days across DST changes whatever the process time zone (%s)',
    (timeZone) => {
      // Prepare
      const before = process.env.TZ;
      process.env.TZ = timeZone;

      try {
        // Act: the spring and autumn changes of 2024 in Europe, the US and Lord Howe Island
        // Assess
        expect(
          [
            range('2024-03-30', '2024-04-01'),
            range('2024-10-26', '2024-10-28'),
            range('2024-03-09', '2024-03-11'),
            range('2024-11-02', '2024-11-04'),
            range('2024-04-06', '2024-04-08'),
            range('2024-10-05', '2024-10-07'),
            range('2024-01-01', '2024-12-31'),
          ].map(daysInRange),
        ).toEqual([3, 3, 3, 3, 3, 3, 366]);
      } finally {
        if (before === undefined) delete process.env.TZ;
        else process.env.TZ = before;
      }
    },
  );
});
