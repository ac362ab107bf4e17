/**
 * Performance report (spec 2.4): orders and revenue per calendar day of the restaurant.
 * With a compare range, row i carries the totals of day i of the compare range; rows past the
 * end of a shorter compare range carry no `compare`, and compare days past the end of the
 * main range are not reported.
 */
import type { DayTotals } from './repository';
import type { ReportDefinition, RowValues } from './report';

const values = ({ date, orderCount, revenue }: DayTotals): RowValues => ({
  date,
  orderCount,
  revenue,
});

export const ordersPerDay: ReportDefinition = {
  id: 'orders-per-day',
  title: 'Orders per day',
  comparable: true,
  properties: [
    { key: 'date', name: 'Day', type: 'string', unit: 'DATE' },
    { key: 'orderCount', name: 'Orders', type: 'integer' },
    { key: 'revenue', name: 'Sales', type: 'number', unit: 'CURRENCY' },
  ],
  async rows(repository, scope, { range, compare }) {
    const [days, compareDays] = await Promise.all([
      repository.ordersPerDay(scope, range),
      compare ? repository.ordersPerDay(scope, compare) : Promise.resolve(undefined),
    ]);
    return days.map((day, i) => {
      const other = compareDays?.[i];
      return other ? { data: values(day), compare: values(other) } : { data: values(day) };
    });
  },
};
