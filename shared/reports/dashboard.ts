/**
 * The dashboard: today's key figures of a restaurant against the same weekday a week earlier,
 * in the generic success envelope of spec 2.5. Both periods run from local midnight to the
 * current local time of day, so a morning dashboard compares a morning with a morning. Orders,
 * revenue and average order value count the orders that count in every report (placed,
 * accepted, delivered); the cancellation rate is cancelled and rejected orders over all orders
 * of the period.
 */
import type { IsoDate } from '../dates';
import { dashboardQueries, type DashboardQueries, type PeriodFigures } from './dashboard.sql';
import type { ServiceDefinition } from './report';

export interface Comparison {
  readonly value: number;
  readonly compare: number;
}

/** `data` of the envelope. */
export interface Dashboard {
  readonly date: IsoDate;
  readonly compareDate: IsoDate;
  readonly currency: string | null;
  readonly orders: Comparison;
  readonly revenue: Comparison;
  readonly averageOrderValue: Comparison;
  readonly cancellationRate: Comparison;
}

/** The dashboard takes no parameters. */
export type DashboardParameters = Readonly<Record<string, never>>;

const comparison = (type: 'integer' | 'number', description: string) => ({
  type: 'object',
  description,
  required: ['value', 'compare'],
  additionalProperties: false,
  properties: {
    value: { type, description: 'Today, from local midnight to the current local time' },
    compare: {
      type,
      description: 'The same weekday a week earlier, from local midnight to the same local time',
    },
  },
});

const compared = (
  today: PeriodFigures,
  compare: PeriodFigures,
  key: Exclude<keyof PeriodFigures, 'date'>,
): Comparison => ({ value: today[key], compare: compare[key] });

export const dashboard: ServiceDefinition<DashboardParameters, DashboardQueries, Dashboard> = {
  id: 'dashboard',
  title: 'Dashboard',
  description:
    "Today's orders, revenue, average order value and cancellation rate so far, against the same weekday a week earlier up to the same time of day.",
  parameters: [],
  dataSchema: {
    type: 'object',
    required: [
      'date',
      'compareDate',
      'currency',
      'orders',
      'revenue',
      'averageOrderValue',
      'cancellationRate',
    ],
    additionalProperties: false,
    properties: {
      date: {
        type: 'string',
        format: 'date',
        description: "Today in the restaurant's time zone",
      },
      compareDate: {
        type: 'string',
        format: 'date',
        description: 'The same weekday a week earlier',
      },
      currency: {
        type: ['string', 'null'],
        description:
          'ISO 4217 code of the restaurant currency (amounts are in it); null when the restaurant has no data',
      },
      orders: comparison('integer', 'Orders placed, accepted or delivered'),
      revenue: comparison('number', "Their total, rounded to the currency's minor unit"),
      averageOrderValue: comparison(
        'number',
        "Revenue per order, rounded to the currency's minor unit; 0 without orders",
      ),
      cancellationRate: comparison(
        'number',
        'Cancelled and rejected orders over all orders, 0 to 1, 4 decimals; 0 without orders',
      ),
    },
  },
  parseParameters: () => ({}),
  queries: dashboardQueries,
  async run(queries, scope) {
    const { currency, today, compare } = await queries.todayFigures(scope);
    return {
      date: today.date,
      compareDate: compare.date,
      currency,
      orders: compared(today, compare, 'orders'),
      revenue: compared(today, compare, 'revenue'),
      averageOrderValue: compared(today, compare, 'averageOrderValue'),
      cancellationRate: compared(today, compare, 'cancellationRate'),
    };
  },
};
