/**
 * Resolves the operations settings for serverless.yml (tools/generators/operations.ts, loaded with tsx):
 * the alarms and their thresholds, X-Ray tracing, the stage's throttling, the account's API
 * Gateway CloudWatch role, the metrics namespace, the web ACL, the gradual release, the custom
 * domain and the tags. Each is an environment variable or the
 * serverless param of the same name, read per stage and region (ALARM_TOPIC_ARN_PRODUCTION_EU_WEST_1,
 * tools/generators/variables.ts). A bad value fails packaging with a message naming the variable it came from.
 *
 * `settings` goes to custom.operations, which the plugin tools/serverless/operations.js hands
 * to tools/generators/operations.ts once osls has compiled the template; `tracing` to
 * provider.tracing.lambda; `metricsNamespace` to the functions' METRICS_NAMESPACE; `stackTags`
 * (service, stage and STACK_TAGS) to the stack, by the plugin while osls deploys.
 */
'use strict';

module.exports = async ({ resolveVariable }) => {
  const { scopedSetting } = await import('./variables.cjs');
  const { tsImport } = await import('tsx/esm/api');
  const { OPERATIONS_VARIABLES, operationsSettings } = await tsImport(
    '../generators/operations.ts',
    __filename,
  );
  const stage = await resolveVariable('sls:stage');
  const region = await resolveVariable('self:provider.region');
  const raw = {};
  for (const name of OPERATIONS_VARIABLES) {
    const { variable, value } = await scopedSetting(resolveVariable, name);
    raw[name] = { variable, value };
  }
  const settings = operationsSettings(raw, { stage, region });
  const { serviceTags } = await tsImport('../generators/tags.ts', __filename);
  const service = await resolveVariable('self:service');
  return {
    settings,
    tracing: settings.tracing,
    metricsNamespace: settings.metricsNamespace,
    stackTags: serviceTags(service, stage, settings.tags),
  };
};
