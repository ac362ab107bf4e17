/** GET /v1/restaurants/{id}/reports/dishes — dishes ordered in a range (spec 4.1). */
import { reportEndpoint } from '../../middleware/compose';
import { dishes } from '../../shared/reports/dishes';
import { containerDependencies } from '../../shared/runtime';

const deps = containerDependencies();
export const handler = reportEndpoint(dishes, deps.reports, deps);
