import { addDays, eachDay, todayIn } from '../../../tools/dates';
import type { IsoDate } from '../../../shared/dates';

const d = (value: string) => value as IsoDate;

describe('tools/dates: day arithmetic', () => {
  it('adds days across month ends, leap days and DST changes without drifting', () => {
    expect(addDays(d('2024-02-28'), 1)).toBe('2024-02-29');
    expect(addDays(d('2024-03-30'), 2)).toBe('2024-04-01');
    expect(addDays(d('2024-10-26'), 2)).toBe('2024-10-28');
    expect(addDays(d('2024-01-01'), -1)).toBe('2023-12-31');
  });

  it('lists each day of a range in order', () => {
    expect(eachDay({ from: d('2024-12-30'), to: d('2025-01-02') })).toEqual([
      '2024-12-30',
      '2024-12-31',
      '2025-01-01',
      '2025-01-02',
    ]);
  });

  it("gives today's date in the restaurant's own time zone", () => {
    const instant = new Date('2024-06-30T21:30:00Z');
    expect(todayIn('UTC', instant)).toBe('2024-06-30');
    expect(todayIn('Asia/Dubai', instant)).toBe('2024-07-01');
    expect(todayIn('America/Mexico_City', instant)).toBe('2024-06-30');
  });

  it('keeps each time zone its own date when zones and instants alternate', () => {
    const evening = new Date('2024-06-30T21:30:00Z');
    const morning = new Date('2024-07-01T05:00:00Z');
    expect([
      todayIn('Asia/Dubai', evening),
      todayIn('America/Mexico_City', morning),
      todayIn('Asia/Dubai', morning),
      todayIn('America/Mexico_City', evening),
    ]).toEqual(['2024-07-01', '2024-06-30', '2024-07-01', '2024-06-30']);
  });

  it('refuses an unknown time zone every time it is asked', () => {
    expect(() => todayIn('Mars/Olympus_Mons')).toThrow(RangeError);
    expect(() => todayIn('Mars/Olympus_Mons')).toThrow(RangeError);
  });
});
