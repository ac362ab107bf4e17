/**
 * npm run deploy:plugin -- --file <bundle> --region <region> [--portal-version v2]
 * Registers a bundle already on the CDN with the plugin registry (spec 4.6): PUT
 * PLUGIN_UPDATE_URL with bundleUrl `<PLUGIN_CDN_URL>/<region>/reports/<file name>` and the
 * portal version (v1 by default), authenticated by PLUGIN_API_KEY. Exit 0 deployed, 1 refused
 * or unreachable (status and body shown), 2 bad arguments or environment. The key is never shown.
 */
import { nodeIo, runDeploy } from './plugin/deploy';

process.exitCode = await runDeploy(process.argv.slice(2), process.env, nodeIo());
