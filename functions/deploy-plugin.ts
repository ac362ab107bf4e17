/** PUT /v1/plugins/{code} — the plugin deployment call, by x-api-key (spec 4.6, 9). */
import { deployPluginHandler } from '../middleware/compose';

export const handler = deployPluginHandler();
