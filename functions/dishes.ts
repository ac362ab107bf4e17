/** GET /v1/restaurants/{id}/reports/dishes — dishes ordered in a range (spec 4.1). */
import { reportHandler } from '../middleware/compose';
import { dishes } from '../shared/reports/dishes';

export const handler = reportHandler(dishes);
