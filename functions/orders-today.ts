/** GET /v1/restaurants/{id}/orders/today (and /res/{id}/orders/today) — today's orders. */
import { reportHandler } from '../middleware/compose';
import { ordersToday } from '../shared/reports/orders-today';

export const handler = reportHandler(ordersToday);
