/**
 * What makes the packaged CloudFormation operable (docs/operations.md), added to the template
 * osls compiles by the local plugin tools/serverless/operations.js:
 *
 * - **Alarms** on the API's 5xx rate and p99 latency, the functions' throttles, and the key-set
 *   failures and database errors the functions publish as Embedded Metric Format metrics.
 * - **The stage**, owned by this template (`AWS::ApiGateway::Stage`) rather than made implicitly
 *   by the Deployment: per-stage throttling, X-Ray tracing, and JSON access logs to a log group
 *   of this stack.
 * - **Releases** through a `live` alias per function: API Gateway calls the alias, which points
 *   at the version this deployment published, so a release is rolled back by moving the alias;
 *   with DEPLOYMENT_PREFERENCE, CodeDeploy shifts it gradually (tools/generators/deployment.ts).
 * - **Tags** (`service`, `stage` and STACK_TAGS) on every taggable resource (tools/generators/tags.ts).
 * - **A per-client limit**, a regional WAF web ACL on the stage (tools/generators/waf.ts), and an optional
 *   **custom domain** (tools/generators/domain.ts).
 *
 * The settings are read when packaging (tools/serverless/operations-settings.cjs) and checked by
 * operations/settings.ts; the live aliases are in operations/aliases.ts, the stage in
 * operations/stage.ts, the alarms in operations/alarms.ts (their text in runbooks.json). This
 * module wires them into the template.
 */
import { resourcesOfType, single, type Resource, type Template } from './cloudformation';
import { hasPreTrafficHook, preTrafficHook, withoutPreTrafficHook } from './pre-traffic';
import { releaseAlarmLogicalId } from './release-alarms';
import { routesOf } from './throttles';
import { gradualDeployment } from './deployment';
import { customDomain } from './domain';
import { serviceTags, withTags } from './tags';
import { WAF_RATE_RULE, webAcl } from './waf';
import { dashboardUrl, operationsDashboard } from './dashboard';
import {
  HEARTBEAT_ALARM_LOGICAL_ID,
  hasHeartbeat,
  heartbeatChecks,
  withoutHeartbeat,
} from './heartbeat';
import { liveAliases } from './operations/aliases';
import { alarms, heartbeatDescription, notifyingTopic } from './operations/alarms';
import type { OperationsSettings, ServiceContext } from './operations/settings';
import { ownedStage, STAGE_LOGICAL_ID } from './operations/stage';

export type { Resource, Template } from './cloudformation';
export type { RawSetting } from './settings';
export { NO_TOPIC } from './settings-check';
export * from './operations/settings';
export * from './operations/aliases';
export * from './operations/stage';
export * from './operations/alarms';

/**
 * `template` with everything above: a new template, `template` itself left as it was.
 * Throws a TypeError when the template lacks what the additions need (one REST API, one
 * Deployment, a version per function).
 */
export const withOperations = (
  compiled: Template,
  settings: OperationsSettings,
  context: ServiceContext,
): Template => {
  const name = `${context.service}-${settings.stage}`;
  const gradual = settings.deploymentPreference !== 'AllAtOnce';
  const released =
    gradual || !hasPreTrafficHook(compiled) ? compiled : withoutPreTrafficHook(compiled);
  const beating = settings.alarms.enabled && hasHeartbeat(released);
  const template = beating || !hasHeartbeat(released) ? released : withoutHeartbeat(released);
  const added = {
    ...liveAliases(template),
    ...ownedStage(template, settings, context),
  };
  const heartbeat = beating
    ? heartbeatChecks(
        { ...template, Resources: { ...template.Resources, ...added } },
        {
          name,
          namespace: settings.metricsNamespace,
          actions: notifyingTopic(settings.alarms.topicArn),
          description: heartbeatDescription(settings),
        },
      )
    : {};
  const dashboardLink = ` Dashboard: ${dashboardUrl(name, settings.region)}`;
  const { [HEARTBEAT_ALARM_LOGICAL_ID]: heartbeatAlarm, ...heartbeatFunction } = heartbeat;
  const alarmResources: Record<string, Resource> = Object.fromEntries(
    Object.entries({
      ...alarms(template, settings, context),
      ...(heartbeatAlarm ? { [HEARTBEAT_ALARM_LOGICAL_ID]: heartbeatAlarm } : {}),
    }).map(([id, alarm]) => [
      id,
      {
        ...alarm,
        Properties: {
          ...alarm.Properties,
          AlarmDescription: `${String(alarm.Properties?.AlarmDescription)}${dashboardLink}`,
        },
      },
    ]),
  );
  const withAliases = { ...template, Resources: { ...template.Resources, ...added } };
  const restApiId = single(template, 'AWS::ApiGateway::RestApi')[0];
  const domain = customDomain(settings.domain, { restApiId, stageId: STAGE_LOGICAL_ID });
  const resources: Record<string, Resource> = {
    ...withAliases.Resources,
    ...heartbeatFunction,
    ...alarmResources,
    ...webAcl(settings.waf, {
      name,
      restApiId,
      stageId: STAGE_LOGICAL_ID,
    }),
    ...domain.resources,
    ...operationsDashboard({
      name,
      region: settings.region,
      apiName: String(template.Resources[restApiId]?.Properties?.Name),
      stage: settings.stage,
      namespace: settings.metricsNamespace,
      functionNames: [...routesOf(template).keys()].map((fn) =>
        String(template.Resources[fn]?.Properties?.FunctionName),
      ),
      ...(settings.waf.enabled ? { waf: { name, rule: WAF_RATE_RULE } } : {}),
      alarmNames: Object.values(alarmResources).map((alarm) => String(alarm.Properties?.AlarmName)),
    }),
    ...gradualDeployment(withAliases, settings.deploymentPreference, {
      name,
      // Each release on its own version's signal only: never on what clients can drive.
      rollbackAlarmOf: (fn) => {
        const id = releaseAlarmLogicalId(fn);
        return Object.hasOwn(alarmResources, id) ? id : undefined;
      },
    }),
  };
  if (gradual && hasPreTrafficHook(template)) {
    Object.assign(
      resources,
      preTrafficHook({ Resources: resources }, routesOf(template), { name }),
    );
  }
  if (settings.guarded) {
    // The logs outlive the stack: deleting production keeps what it recorded.
    for (const [id, group] of resourcesOfType({ Resources: resources }, 'AWS::Logs::LogGroup')) {
      resources[id] = { ...group, DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' };
    }
  }
  const tags = serviceTags(context.service, settings.stage, settings.tags);
  return {
    ...template,
    Outputs: { ...template.Outputs, ...domain.outputs },
    Resources: { ...resources, ...withTags(resources, tags, settings.region) },
  };
};
