/**
 * Revenue per month: one row per calendar month of the restaurant's time zone between `from`
 * and `to`, months without orders included with zeros. Each row carries its month (unit
 * DATE_MONTH) and that month's year (unit DATE_YEAR), so the portal can show months and group
 * them by year. The spec's range limit (31 days, spec 8) is kept meaningful for months: at most
 * 12 months, both ends included.
 */
import type { DateRange, IsoDate } from '../dates';
import { cannotBeEmpty, PortalError, validationError, type ValidationEntry } from '../errors';
import type { ParameterReader } from '../http/event';
import { readDate, type DateRule } from './parameters';
import type { ParameterDefinition, ReportDefinition } from './report';
import { revenueQueries, type RevenueQueries } from './revenue.sql';

export const MAX_RANGE_MONTHS = 12;

export const MONTH_RANGE_PARAMETERS: readonly ParameterDefinition[] = [
  {
    name: 'from',
    description: "First month, as its first day (YYYY-MM-01), in the restaurant's time zone",
    required: true,
    format: 'date',
  },
  {
    name: 'to',
    description: 'Last month, included, as its first day (YYYY-MM-01); at most 12 months from from',
    required: true,
    format: 'date',
  },
];

export interface RevenueParameters {
  /** First days of the first and the last month. */
  readonly months: DateRange;
}

const monthIndex = (date: IsoDate): number =>
  Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1;

/** Months in the range, both ends included. */
export const monthsInRange = ({ from, to }: DateRange): number =>
  monthIndex(to) - monthIndex(from) + 1;

/** The first day of the year of a date (DATE_YEAR input format). */
export const yearOf = (date: IsoDate): IsoDate => `${date.slice(0, 4)}-01-01` as IsoDate;

export const outOfMonthRange = (): PortalError =>
  new PortalError(400, 'OUT_OF_RANGE', `Only ${MAX_RANGE_MONTHS} months can be selected`);

/** DATE_MONTH input (spec 2.4): the first day of a month. */
const FIRST_OF_MONTH: DateRule = {
  accepts: (date) => date.endsWith('-01'),
  message: (name) => `${name} must be the first day of a month (YYYY-MM-01)`,
};

/**
 * `from` and `to`: required, once each, first days of months, `from` not after `to`
 * (400 VALIDATION_ERROR with one entry per problem), at most 12 months (400 OUT_OF_RANGE).
 */
export const parseMonthRange = (read: ParameterReader): RevenueParameters => {
  const entries: ValidationEntry[] = [];
  const from = readDate('from', read('from'), entries, FIRST_OF_MONTH);
  const to = readDate('to', read('to'), entries, FIRST_OF_MONTH);
  if (from.state === 'absent') entries.push(cannotBeEmpty('from'));
  if (to.state === 'absent') entries.push(cannotBeEmpty('to'));
  if (from.state !== 'date' || to.state !== 'date') throw validationError(entries);
  const months = { from: from.date, to: to.date };
  if (months.from > months.to) {
    throw validationError([
      { field: 'from', code: 'INVALID_RANGE', message: 'from must not be after to' },
    ]);
  }
  if (monthsInRange(months) > MAX_RANGE_MONTHS) throw outOfMonthRange();
  return { months };
};

export const revenue: ReportDefinition<RevenueParameters, RevenueQueries> = {
  id: 'revenue',
  title: 'Revenue per month',
  description:
    'Orders and sales per calendar month of the restaurant (at most 12 months), with the year of each month.',
  properties: [
    { key: 'month', name: 'Month', type: 'string', unit: 'DATE_MONTH', csvName: 'month' },
    { key: 'year', name: 'Year', type: 'string', unit: 'DATE_YEAR', csvName: 'year' },
    { key: 'orderCount', name: 'Orders', type: 'integer', csvName: 'orders' },
    { key: 'revenue', name: 'Sales', type: 'number', unit: 'CURRENCY', csvName: 'sales' },
  ],
  parameters: MONTH_RANGE_PARAMETERS,
  parseParameters: parseMonthRange,
  queries: revenueQueries,
  fileNameParts: ({ months }) => [months.from.slice(0, 7), months.to.slice(0, 7)],
  async rows(queries, scope, { months }) {
    const totals = await queries.revenuePerMonth(scope, months);
    return totals.map(({ month, orderCount, revenue: sales }) => ({
      data: { month, year: yearOf(month), orderCount, revenue: sales },
    }));
  },
};
