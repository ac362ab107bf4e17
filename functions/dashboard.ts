/** GET /v1/restaurants/{id}/dashboard (and /res/{id}/dashboard) — today against a week ago. */
import { serviceHandler } from '../middleware/compose';
import { dashboard } from '../shared/reports/dashboard';

export const handler = serviceHandler(dashboard);
