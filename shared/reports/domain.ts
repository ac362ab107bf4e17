/**
 * What every report and service knows of orders: the scope a request is answered for (one
 * restaurant as sold on one platform, after the ownership check) and which order states count.
 */

/** One restaurant (our internal id) as sold on one platform. */
export interface ReportScope {
  readonly restaurantId: string;
  readonly platformId: string;
}

/**
 * The states an order counts in, in every report's orders and sales (the rollups'
 * report_counts() in migration 004 mirrors this list).
 */
export const COUNTED_STATES = ['PLACED', 'ACCEPTED', 'DELIVERED'] as const;

/** The states that count as cancelled (the dashboard's cancellation rate). */
export const CANCELLED_STATES = ['CANCELLED', 'REJECTED'] as const;

/** Counted orders and their sales, rounded to the currency's minor unit. */
export interface OrderTotals {
  readonly orderCount: number;
  readonly revenue: number;
}
