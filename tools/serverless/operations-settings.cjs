/**
 * Resolves the operations settings for serverless.yml (tools/generators/operations.ts, loaded with tsx):
 * the alarms and their thresholds, X-Ray tracing, the stage's throttling, the account's API
 * Gateway CloudWatch role, the metrics namespace, the web ACL, the gradual release, the custom
 * domain and the tags, as tools/serverless/settings.cjs read them per stage and region
 * (ALARM_TOPIC_ARN_PRODUCTION_EU_WEST_1), over the stage's defaults of custom.stages. A bad value
 * fails packaging with a message naming the variable it came from.
 *
 * `settings` goes to custom.operations, which the plugin tools/serverless/operations.js hands
 * to tools/generators/operations.ts once osls has compiled the template; `tracing` to
 * provider.tracing.lambda; `metricsNamespace` to the functions' METRICS_NAMESPACE; `stackTags`
 * (service, stage and STACK_TAGS) to the stack, by the plugin while osls deploys.
 */
'use strict';

const { settingsOf, userError } = require('./settings.cjs');

module.exports = async ({ resolveVariable }) => {
  const { values, problems, scope, rules } = await settingsOf(resolveVariable);
  // A refused setting is among custom.settingsCheck's problems.
  if (problems.length > 0)
    return { settings: {}, tracing: false, metricsNamespace: '', stackTags: {} };
  const { tsImport } = await import('tsx/esm/api');
  const { OPERATIONS_VARIABLES, operationsSettings } = await tsImport(
    '../generators/operations.ts',
    __filename,
  );
  const { stage, region } = scope;
  const raw = Object.fromEntries(
    OPERATIONS_VARIABLES.map((name) => [
      name,
      { variable: values[name].variable, value: values[name].value },
    ]),
  );
  let settings;
  try {
    settings = operationsSettings(raw, { stage, region, guarded: rules.guarded });
  } catch (error) {
    throw userError(error.message);
  }
  const { serviceTags } = await tsImport('../generators/tags.ts', __filename);
  const service = await resolveVariable('self:service');
  return {
    settings,
    tracing: settings.tracing,
    metricsNamespace: settings.metricsNamespace,
    stackTags: serviceTags(service, stage, settings.tags),
  };
};
