/** GET /v1/restaurants/{id}/reports/orders/day — orders and sales per day (spec 4.1). */
import { reportHandler } from '../middleware/compose';
import { ordersPerDay } from '../shared/reports/orders-per-day';

export const handler = reportHandler(ordersPerDay);
