/**
 * The data port of the report service: what the reports read, with no knowledge of SQL or of
 * Middy. The PostgreSQL adapter implements it; tests may implement it in memory.
 */
import type { DateRange, IsoDate } from '../dates';

/** One restaurant (our internal id) as sold on one platform. */
export interface ReportScope {
  readonly restaurantId: string;
  readonly platformId: string;
}

export interface DayTotals {
  readonly date: IsoDate;
  readonly orderCount: number;
  readonly revenue: number;
}

export interface DishTotals {
  readonly name: string;
  readonly orderCount: number;
  readonly revenue: number;
}

export interface ReportRepository {
  /** One entry per calendar day of the range, in the restaurant's time zone, zeros included. */
  ordersPerDay(scope: ReportScope, range: DateRange): Promise<DayTotals[]>;
  /** One entry per dish ordered in the range, highest revenue first. */
  dishes(scope: ReportScope, range: DateRange): Promise<DishTotals[]>;
}
