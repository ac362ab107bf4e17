/** GET /v1/restaurants/{id}/reports/orders/day — orders and revenue per day (spec 4.1). */
import { reportEndpoint } from '../../middleware/compose';
import { ordersPerDay } from '../../shared/reports/orders-per-day';
import { containerDependencies } from '../../shared/runtime';

const deps = containerDependencies();
export const handler = reportEndpoint(ordersPerDay, deps.reports, deps);
