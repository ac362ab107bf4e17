/** GET /v1/plugins — the plugin registry for the caller's platforms (spec 2.1, 4.4). */
import { pluginListEndpoint } from '../../middleware/plugins';
import { createPostgresPluginRegistry } from '../../shared/plugins/registry';
import { containerDependencies } from '../../shared/runtime';

const deps = containerDependencies();
export const handler = pluginListEndpoint(createPostgresPluginRegistry(deps.sql), deps);
