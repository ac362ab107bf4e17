/** GET /v1/restaurants/{id}/orders/today (and /res/{id}/orders/today) — today's orders. */
import { reportEndpoint } from '../../middleware/compose';
import { ordersToday } from '../../shared/reports/orders-today';
import { ordersTodayQueries } from '../../shared/reports/queries/orders-today';
import { containerDependencies } from '../../shared/runtime';

const deps = containerDependencies();
export const handler = reportEndpoint(ordersToday, ordersTodayQueries(deps.sql), deps);
