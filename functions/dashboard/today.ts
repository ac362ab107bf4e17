/** GET /v1/restaurants/{id}/dashboard (and /res/{id}/dashboard) — today against a week ago. */
import { serviceEndpoint } from '../../middleware/compose';
import { dashboard } from '../../shared/dashboard/today';
import { dashboardQueries } from '../../shared/dashboard/queries';
import { containerDependencies } from '../../shared/runtime';

const deps = containerDependencies();
export const handler = serviceEndpoint(dashboard, dashboardQueries(deps.sql), deps);
