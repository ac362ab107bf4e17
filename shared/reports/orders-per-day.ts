/**
 * Performance report (spec 2.4): orders and revenue per calendar day of the restaurant.
 * With a compare range, row i carries the totals of day i of the compare range; rows past the
 * end of a shorter compare range carry no `compare`, and compare days past the end of the
 * main range are not reported.
 */
import {
  ordersPerDayQueries,
  type DayTotals,
  type OrdersPerDayQueries,
} from './orders-per-day.sql';
import {
  COMPARE_PARAMETERS,
  DAY_RANGE_PARAMETERS,
  parseDayRange,
  rangeFileNameParts,
  type DayRangeParameters,
} from './parameters';
import type { ReportDefinition, RowValues } from './report';

const values = ({ date, orderCount, revenue }: DayTotals): RowValues => ({
  date,
  orderCount,
  revenue,
});

export const ordersPerDay: ReportDefinition<DayRangeParameters, OrdersPerDayQueries> = {
  id: 'orders-per-day',
  title: 'Orders per day',
  description: 'Orders and sales per day of the restaurant, optionally beside a comparison period.',
  properties: [
    { key: 'date', name: 'Day', type: 'string', unit: 'DATE', csvName: 'day' },
    { key: 'orderCount', name: 'Orders', type: 'integer', csvName: 'orders' },
    { key: 'revenue', name: 'Sales', type: 'number', unit: 'CURRENCY', csvName: 'sales' },
  ],
  parameters: [...DAY_RANGE_PARAMETERS, ...COMPARE_PARAMETERS],
  parseParameters: (read) => parseDayRange(read, { compare: true }),
  queries: ordersPerDayQueries,
  fileNameParts: rangeFileNameParts,
  async rows(queries, scope, { range, compare }) {
    // The two ranges are read concurrently; without a compare range, the one read alone.
    const [days, compareDays] = compare
      ? await Promise.all([
          queries.ordersPerDay(scope, range),
          queries.ordersPerDay(scope, compare),
        ])
      : [await queries.ordersPerDay(scope, range), undefined];
    return days.map((day, i) => {
      const other = compareDays?.[i];
      return other ? { data: values(day), compare: values(other) } : { data: values(day) };
    });
  },
};
