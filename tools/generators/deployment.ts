/**
 * A gradual, reversible release of each function's `live` alias through AWS CodeDeploy
 * (docs/releases.md, "Releases and rollback"): the alias carries a
 * CodeDeployLambdaAliasUpdate update policy, so when a deploy publishes a new version
 * CloudFormation hands the alias's move to a deployment group of the function, which shifts
 * traffic to it by DEPLOYMENT_PREFERENCE and moves it back when the alarm on that new version
 * (release-alarms.ts) fires meanwhile.
 */
import { assumedBy, refOf, resourcesOfType, type Resource, type Template } from './cloudformation';

/** CodeDeploy's predefined Lambda configurations (CodeDeployDefault.Lambda<name>). */
export const DEPLOYMENT_PREFERENCES = [
  'Canary10Percent5Minutes',
  'Canary10Percent10Minutes',
  'Canary10Percent15Minutes',
  'Canary10Percent30Minutes',
  'Linear10PercentEvery1Minute',
  'Linear10PercentEvery2Minutes',
  'Linear10PercentEvery3Minutes',
  'Linear10PercentEvery10Minutes',
  'AllAtOnce',
] as const;
export type DeploymentPreference = (typeof DEPLOYMENT_PREFERENCES)[number];

export const CODEDEPLOY_APPLICATION_LOGICAL_ID = 'CodeDeployApplication';
export const CODEDEPLOY_ROLE_LOGICAL_ID = 'CodeDeployServiceRole';

/** `OrdersPerDayLiveLambdaAlias` → `OrdersPerDayDeploymentGroup`. */
export const deploymentGroupLogicalId = (aliasLogicalId: string): string =>
  `${aliasLogicalId.replace(/LiveLambdaAlias$/, '')}DeploymentGroup`;

/**
 * The CodeDeploy application, its role, a deployment group per `live` alias and the aliases'
 * update policy; nothing for AllAtOnce. `rollbackAlarmOf`: the alarm that rolls a function's
 * release back, if any.
 */
export const gradualDeployment = (
  template: Template,
  preference: DeploymentPreference,
  {
    name,
    rollbackAlarmOf,
  }: { name: string; rollbackAlarmOf: (functionLogicalId: string) => string | undefined },
): Record<string, Resource> => {
  if (preference === 'AllAtOnce') return {};
  const aliases = resourcesOfType(template, 'AWS::Lambda::Alias');
  const functionIds = aliases.map(
    ([, alias]) => (alias.Properties?.FunctionName as { Ref: string }).Ref,
  );
  const changed: Record<string, Resource> = {
    [CODEDEPLOY_APPLICATION_LOGICAL_ID]: {
      Type: 'AWS::CodeDeploy::Application',
      Properties: { ApplicationName: name, ComputePlatform: 'Lambda' },
    },
    // What AWS's AWSCodeDeployRoleForLambdaLimited allows, on these functions only.
    [CODEDEPLOY_ROLE_LOGICAL_ID]: {
      Type: 'AWS::IAM::Role',
      Properties: {
        AssumeRolePolicyDocument: assumedBy('codedeploy.amazonaws.com'),
        Policies: [
          {
            PolicyName: 'shift-live-aliases',
            PolicyDocument: {
              Version: '2012-10-17',
              Statement: [
                {
                  Effect: 'Allow',
                  Action: [
                    'lambda:GetAlias',
                    'lambda:UpdateAlias',
                    'lambda:GetProvisionedConcurrencyConfig',
                  ],
                  Resource: functionIds.flatMap((fn) => [
                    { 'Fn::GetAtt': [fn, 'Arn'] },
                    { 'Fn::Sub': `\${${fn}.Arn}:*` },
                  ]),
                },
                // DescribeAlarms takes no resource narrower than the account's alarms.
                { Effect: 'Allow', Action: ['cloudwatch:DescribeAlarms'], Resource: '*' },
              ],
            },
          },
        ],
      },
    },
  };
  for (const [aliasId, alias] of aliases) {
    const groupId = deploymentGroupLogicalId(aliasId);
    const fn = refOf(alias.Properties?.FunctionName) ?? '';
    const rollbackAlarms = [rollbackAlarmOf(fn)].filter((id) => id !== undefined);
    changed[groupId] = {
      Type: 'AWS::CodeDeploy::DeploymentGroup',
      Properties: {
        ApplicationName: { Ref: CODEDEPLOY_APPLICATION_LOGICAL_ID },
        ServiceRoleArn: { 'Fn::GetAtt': [CODEDEPLOY_ROLE_LOGICAL_ID, 'Arn'] },
        DeploymentConfigName: `CodeDeployDefault.Lambda${preference}`,
        DeploymentStyle: { DeploymentType: 'BLUE_GREEN', DeploymentOption: 'WITH_TRAFFIC_CONTROL' },
        AutoRollbackConfiguration: {
          Enabled: true,
          Events: [
            'DEPLOYMENT_FAILURE',
            // A release stopped by hand (aws deploy stop-deployment) goes back too.
            'DEPLOYMENT_STOP_ON_REQUEST',
            ...(rollbackAlarms.length > 0 ? ['DEPLOYMENT_STOP_ON_ALARM'] : []),
          ],
        },
        ...(rollbackAlarms.length > 0
          ? {
              AlarmConfiguration: {
                Enabled: true,
                Alarms: rollbackAlarms.map((id) => ({ Name: { Ref: id } })),
              },
            }
          : {}),
      },
    };
    changed[aliasId] = {
      ...alias,
      UpdatePolicy: {
        CodeDeployLambdaAliasUpdate: {
          ApplicationName: { Ref: CODEDEPLOY_APPLICATION_LOGICAL_ID },
          DeploymentGroupName: { Ref: groupId },
        },
      },
    };
  }
  return changed;
};
