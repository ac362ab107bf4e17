/**
 * The stage, owned by the template (`AWS::ApiGateway::Stage`) rather than made implicitly by the
 * Deployment: per-stage and per-route throttling, X-Ray tracing, and JSON access logs to a log
 * group of the stack.
 */
import {
  assumedBy,
  refOf,
  resourcesOfType,
  single,
  type Resource,
  type Template,
} from '../cloudformation';
import { methodSettingsPath, routeThrottles } from '../throttles';
import type { OperationsSettings, ServiceContext } from './settings';

export const STAGE_LOGICAL_ID = 'ApiGatewayStage';
export const ACCESS_LOG_GROUP_LOGICAL_ID = 'ApiGatewayLogGroup';
export const CLOUDWATCH_ROLE_LOGICAL_ID = 'ApiGatewayCloudWatchRole';
export const ACCOUNT_LOGICAL_ID = 'ApiGatewayAccount';

/**
 * The access log line, one JSON object per request: the request id (the functions' `request`
 * lines carry the same `requestId`), the caller's IP, the route as the functions log it (method
 * and resource template: no path id, no query string), the status, the latencies and the
 * gateway's own error type. Never a header, a token, a query string or an authorizer value.
 * `status` and `responseLatency` are numbers (always set); the others may be `-` and are strings.
 */
export const ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: '$context.requestId',
  time: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  route: '$context.httpMethod $context.resourcePath',
  status: '@status@',
  responseLatency: '@responseLatency@',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integration.status',
  errorType: '$context.error.responseType',
  responseLength: '$context.responseLength',
  xrayTraceId: '$context.xrayTraceId',
})
  .replace('"@status@"', '$context.status')
  .replace('"@responseLatency@"', '$context.responseLatency');

// Execution logs would hold headers and tokens: off, the access log suffices.
const QUIET_METHODS = { LoggingLevel: 'OFF', DataTraceEnabled: false, MetricsEnabled: false };

/**
 * The stage, owned by this template: the Deployment loses its StageName (and depends on the
 * gateway responses, so the first deployment publishes them too); the stage carries the
 * throttling, the tracing and the access logs, to a log group of this stack; with
 * API_GATEWAY_CLOUDWATCH_ROLE=create, the account's CloudWatch role too.
 */
export const ownedStage = (
  template: Template,
  settings: OperationsSettings,
  context: ServiceContext,
): Record<string, Resource> => {
  const [restApiId] = single(template, 'AWS::ApiGateway::RestApi');
  const [deploymentId, deployment] = single(template, 'AWS::ApiGateway::Deployment');
  const gatewayResponses = resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse')
    .filter(([, response]) => refOf(response.Properties?.RestApiId) === restApiId)
    .map(([id]) => id);
  const dependsOn = [deployment.DependsOn ?? []].flat();
  const { StageName: _stageName, ...deploymentProperties } = deployment.Properties ?? {};
  const changed: Record<string, Resource> = {
    [deploymentId]: {
      ...deployment,
      Properties: deploymentProperties,
      DependsOn: [...dependsOn, ...gatewayResponses.filter((id) => !dependsOn.includes(id))],
    },
    [ACCESS_LOG_GROUP_LOGICAL_ID]: {
      Type: 'AWS::Logs::LogGroup',
      Properties: {
        LogGroupName: `/aws/api-gateway/${context.service}-${settings.stage}`,
        RetentionInDays: context.logRetentionInDays,
      },
    },
    [STAGE_LOGICAL_ID]: {
      Type: 'AWS::ApiGateway::Stage',
      Properties: {
        RestApiId: { Ref: restApiId },
        DeploymentId: { Ref: deploymentId },
        StageName: settings.stage,
        TracingEnabled: settings.tracing,
        AccessLogSetting: {
          DestinationArn: { 'Fn::GetAtt': [ACCESS_LOG_GROUP_LOGICAL_ID, 'Arn'] },
          Format: ACCESS_LOG_FORMAT,
        },
        MethodSettings: [
          {
            ResourcePath: '/*',
            HttpMethod: '*',
            ThrottlingRateLimit: settings.throttle.rate,
            ThrottlingBurstLimit: settings.throttle.burst,
            ...QUIET_METHODS,
          },
          // Each route within its function's reserved concurrency (throttles.ts).
          ...routeThrottles(template, settings.routeDurationMs, settings.routeRate).map(
            (route) => ({
              ResourcePath: methodSettingsPath(route.path),
              HttpMethod: route.method,
              ThrottlingRateLimit: route.rate,
              ThrottlingBurstLimit: route.burst,
              ...QUIET_METHODS,
            }),
          ),
        ],
      },
      ...(settings.cloudWatchRole === 'create' ? { DependsOn: [ACCOUNT_LOGICAL_ID] } : {}),
    },
  };
  if (settings.cloudWatchRole === 'create') {
    // Kept when the stack goes: the account setting serves every stage of the region.
    changed[CLOUDWATCH_ROLE_LOGICAL_ID] = {
      Type: 'AWS::IAM::Role',
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        AssumeRolePolicyDocument: assumedBy('apigateway.amazonaws.com'),
        ManagedPolicyArns: [
          {
            'Fn::Sub':
              'arn:${AWS::Partition}:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs',
          },
        ],
      },
    };
    changed[ACCOUNT_LOGICAL_ID] = {
      Type: 'AWS::ApiGateway::Account',
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: { CloudWatchRoleArn: { 'Fn::GetAtt': [CLOUDWATCH_ROLE_LOGICAL_ID, 'Arn'] } },
    };
  }
  return changed;
};
