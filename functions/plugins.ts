/** GET /v1/plugins — the plugin registry for the caller's platforms (spec 2.1, 4.4). */
import { pluginsHandler } from '../middleware/compose';

export const handler = pluginsHandler();
