/** GET /v1/restaurants/{id}/reports/revenue (and /res/{id}/reports/revenue) — sales per month. */
import { reportHandler } from '../middleware/compose';
import { revenue } from '../shared/reports/revenue';

export const handler = reportHandler(revenue);
