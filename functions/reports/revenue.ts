/** GET /v1/restaurants/{id}/reports/revenue (and /res/{id}/reports/revenue) — sales per month. */
import { reportEndpoint } from '../../middleware/compose';
import { revenueQueries } from '../../shared/reports/queries/revenue';
import { revenue } from '../../shared/reports/revenue';
import { containerDependencies } from '../../shared/runtime';

const deps = containerDependencies();
export const handler = reportEndpoint(revenue, revenueQueries(deps.sql), deps);
