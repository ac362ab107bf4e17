/** PUT /v1/plugins/{code} — the plugin deployment call, by x-api-key (spec 4.6, 9). */
import { pluginDeployEndpoint } from '../../middleware/plugins';
import { createPostgresPluginRegistry } from '../../shared/plugins/registry';
import { containerDependencies } from '../../shared/runtime';

const deps = containerDependencies();
export const handler = pluginDeployEndpoint(createPostgresPluginRegistry(deps.sql), deps);
