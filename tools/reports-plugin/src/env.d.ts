import type { PluginConfig } from './reports';

declare global {
  /** Replaced at build time (tools/plugin/build.ts) by the API URL and the reports. */
  const __REPORTS_PLUGIN_CONFIG__: PluginConfig;
}
