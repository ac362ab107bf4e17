/**
 * Date ranges as the API counts them (shared/reports/parameters.ts, revenue.ts): calendar
 * dates YYYY-MM-DD, both ends included; a day range of at most 31 days, a month range (first
 * days of months) of at most 12 months. All arithmetic in UTC, on calendar dates.
 */
import type { RangeRule } from './reports';

export interface DateRange {
  readonly from: string;
  readonly to: string;
}

const DAY_MS = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 of a real calendar date, or undefined. */
export const dayNumber = (date: string): number | undefined => {
  const match = ISO_DATE.exec(date);
  if (!match) return undefined;
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  const time = Date.UTC(y, m - 1, d);
  const back = new Date(time);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== m - 1 || back.getUTCDate() !== d) {
    return undefined;
  }
  return time / DAY_MS;
};

export const fromDayNumber = (day: number): string =>
  new Date(day * DAY_MS).toISOString().slice(0, 10);

export const addDays = (date: string, days: number): string =>
  fromDayNumber((dayNumber(date) ?? 0) + days);

/** The first day of the month `months` after the month of `date`. */
export const addMonths = (date: string, months: number): string => {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7)) - 1;
  return new Date(Date.UTC(year, month + months, 1)).toISOString().slice(0, 10);
};

const monthIndex = (date: string): number =>
  Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1;

/** Days (or months) in the range, both ends included. */
export const rangeLength = (
  { from, to }: DateRange,
  granularity: RangeRule['granularity'],
): number =>
  granularity === 'day'
    ? (dayNumber(to) ?? 0) - (dayNumber(from) ?? 0) + 1
    : monthIndex(to) - monthIndex(from) + 1;

/** Why the API would refuse a range; the views word it in the owner's language. */
export type RangeProblem =
  | { readonly code: 'incomplete' | 'month' | 'order' | 'length' }
  | { readonly code: 'days' | 'months'; readonly max: number };

/** Why the API would refuse this range, or undefined when it is fine. */
export const rangeProblem = (range: DateRange, rule: RangeRule): RangeProblem | undefined => {
  if (dayNumber(range.from) === undefined || dayNumber(range.to) === undefined) {
    return { code: 'incomplete' };
  }
  if (rule.granularity === 'month' && (!range.from.endsWith('-01') || !range.to.endsWith('-01'))) {
    return { code: 'month' };
  }
  if (range.from > range.to) return { code: 'order' };
  if (rule.max !== null && rangeLength(range, rule.granularity) > rule.max) {
    return { code: rule.granularity === 'day' ? 'days' : 'months', max: rule.max };
  }
  return undefined;
};

/** The latest allowed end for a range starting at `from` (for the input's `max`). */
export const latestEnd = (from: string, rule: RangeRule): string | undefined => {
  if (rule.max === null || dayNumber(from) === undefined) return undefined;
  return rule.granularity === 'day' ? addDays(from, rule.max - 1) : addMonths(from, rule.max - 1);
};

/** The default range ending at `today`: the last 7 days, or the last 6 months. */
export const defaultRange = (today: string, rule: RangeRule): DateRange => {
  if (rule.granularity === 'month') {
    const to = addMonths(today, 0);
    const length = Math.min(6, rule.max ?? 6);
    return { from: addMonths(to, -(length - 1)), to };
  }
  const length = Math.min(7, rule.max ?? 7);
  return { from: addDays(today, -(length - 1)), to: today };
};

/** The period of the same length just before `range` (the default comparison). */
export const previousPeriod = (range: DateRange, rule: RangeRule): DateRange => {
  const length = rangeLength(range, rule.granularity);
  return rule.granularity === 'day'
    ? { from: addDays(range.from, -length), to: addDays(range.from, -1) }
    : { from: addMonths(range.from, -length), to: addMonths(range.from, -1) };
};

/** The same days (or months) a year earlier; 29 February becomes 28 February. */
export const yearEarlier = (range: DateRange, rule: RangeRule): DateRange => {
  if (rule.granularity === 'month') {
    return { from: addMonths(range.from, -12), to: addMonths(range.to, -12) };
  }
  const [year, rest] = [Number(range.from.slice(0, 4)) - 1, range.from.slice(4)];
  const from = String(year).padStart(4, '0') + (rest === '-02-29' ? '-02-28' : rest);
  return { from, to: addDays(from, rangeLength(range, 'day') - 1) };
};

/** Which period a comparison follows as the period moves. */
export type CompareMode = 'previous' | 'year' | 'weekday';

/**
 * The comparison for `range`: the period just before it, the same days a year earlier, or the
 * same weekdays a year earlier (52 weeks back; months a year earlier).
 */
export const comparisonFor = (range: DateRange, mode: CompareMode, rule: RangeRule): DateRange =>
  mode === 'previous'
    ? previousPeriod(range, rule)
    : mode === 'weekday' && rule.granularity === 'day'
      ? { from: addDays(range.from, -364), to: addDays(range.to, -364) }
      : yearEarlier(range, rule);

/** The quick choices of a period, ending on the restaurant's today. */
export const PRESETS = {
  day: ['today', 'yesterday', 'last7', 'last30', 'thisMonth', 'lastMonth'],
  month: ['last3m', 'last6m', 'last12m'],
} as const;
export type Preset = (typeof PRESETS)[keyof typeof PRESETS][number];

/** The period a preset stands for on `today`. */
export const presetRange = (preset: Preset, today: string): DateRange => {
  const month = addMonths(today, 0);
  switch (preset) {
    case 'today':
      return { from: today, to: today };
    case 'yesterday':
      return { from: addDays(today, -1), to: addDays(today, -1) };
    case 'last7':
      return { from: addDays(today, -6), to: today };
    case 'last30':
      return { from: addDays(today, -29), to: today };
    case 'thisMonth':
      return { from: month, to: today };
    case 'lastMonth':
      return { from: addMonths(today, -1), to: addDays(month, -1) };
    default:
      return { from: addMonths(today, 1 - Number(preset.slice(4, -1))), to: month };
  }
};

/** The presets a rule allows (none longer than its limit). */
export const presetsFor = (rule: RangeRule, today: string): Preset[] =>
  PRESETS[rule.granularity].filter((preset) => !rangeProblem(presetRange(preset, today), rule));

/** Why the API would refuse this comparison of `range`, or undefined. */
export const comparisonProblem = (
  compare: DateRange,
  range: DateRange,
  rule: RangeRule,
): RangeProblem | undefined =>
  rangeProblem(compare, rule) ??
  (rangeLength(compare, rule.granularity) === rangeLength(range, rule.granularity)
    ? undefined
    : { code: 'length' });

/** Today's calendar date where the browser is (the user's day, not UTC's). */
export const localToday = (now: Date = new Date()): string =>
  fromDayNumber(Math.floor(Date.UTC(now.getFullYear(), now.getMonth(), now.getDate()) / DAY_MS));
