/**
 * The dashboard (issue 3, "More services"): today's key figures of a restaurant against the
 * same weekday a week earlier, in the generic success envelope of spec 2.5. Both periods run
 * from local midnight to the current local time of day, so a morning dashboard compares a
 * morning with a morning. Orders, revenue and average order value count the orders that count
 * in every report (placed, accepted, delivered); the cancellation rate is cancelled and
 * rejected orders over all orders of the period.
 */
import type { IsoDate } from '../dates';
import type { ReportScope } from '../reports/repository';
import type { ServiceDefinition } from '../service';

/** The figures of one period, rounded as the API shows them. */
export interface PeriodFigures {
  /** The period's day in the restaurant's time zone. */
  readonly date: IsoDate;
  readonly orders: number;
  /** Rounded to the currency's minor unit. */
  readonly revenue: number;
  /** revenue / orders, rounded to the currency's minor unit; 0 without orders. */
  readonly averageOrderValue: number;
  /** (cancelled + rejected) / all orders, rounded to 4 decimals; 0 without orders. */
  readonly cancellationRate: number;
}

export interface DashboardFigures {
  /** ISO 4217 code; null when the database does not know the restaurant. */
  readonly currency: string | null;
  readonly today: PeriodFigures;
  readonly compare: PeriodFigures;
}

/** The data port: today so far and the same part of the same weekday a week earlier. */
export interface DashboardPort {
  todayFigures(scope: ReportScope): Promise<DashboardFigures>;
}

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
export type DashboardQuery = Readonly<Record<string, never>>;

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

export const dashboard: ServiceDefinition<DashboardQuery, DashboardPort, Dashboard> = {
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
  parseQuery: () => ({}),
  async run(port, scope) {
    const { currency, today, compare } = await port.todayFigures(scope);
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
