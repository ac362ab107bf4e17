/**
 * The shape of the CloudFormation template osls compiles, as tools/generators/operations.ts and its
 * modules read and extend it, and the few helpers they share.
 */

export interface Resource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly DependsOn?: string | readonly string[];
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
  readonly UpdatePolicy?: Record<string, unknown>;
  readonly Condition?: string;
}
export interface Template {
  readonly Resources: Readonly<Record<string, Resource>>;
  readonly Outputs?: Readonly<Record<string, unknown>>;
  readonly [key: string]: unknown;
}

export const resourcesOfType = (template: Template, type: string): [string, Resource][] =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

/** The one resource of `type`; throws a TypeError when there are none or several. */
export const single = (template: Template, type: string): [string, Resource] => {
  const found = resourcesOfType(template, type);
  const [first] = found;
  if (found.length !== 1 || !first) {
    throw new TypeError(
      `the template holds ${found.length} ${type} resources, expected exactly one (operations: docs/operations.md)`,
    );
  }
  return first;
};

export const refOf = (value: unknown): string | undefined => {
  const ref = (value as { Ref?: unknown } | null)?.Ref;
  return typeof ref === 'string' ? ref : undefined;
};

/** The logical id whose Arn `value` is (`Fn::GetAtt: [id, Arn]` or `id.Arn`), if it is one. */
export const arnOf = (value: unknown): string | undefined => {
  const getAtt = (value as { 'Fn::GetAtt'?: unknown } | null)?.['Fn::GetAtt'];
  const parts: readonly unknown[] =
    typeof getAtt === 'string' ? getAtt.split('.') : Array.isArray(getAtt) ? getAtt : [];
  const [id, attribute] = parts;
  return attribute === 'Arn' && typeof id === 'string' ? id : undefined;
};

/** Whether `value` is the Arn of `logicalId`. */
export const isArnOf = (value: unknown, logicalId: string): boolean => arnOf(value) === logicalId;

/** A role's trust policy: `service` (`lambda.amazonaws.com`) may assume it. */
export const assumedBy = (service: string) => ({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: [service] }, Action: ['sts:AssumeRole'] }],
});

/** `template` without the resources `dropped` and the outputs that name one of them. */
export const withoutResources = (template: Template, dropped: readonly string[]): Template => {
  const names = (value: unknown) => dropped.some((id) => JSON.stringify(value).includes(`"${id}"`));
  return {
    ...template,
    Resources: Object.fromEntries(
      Object.entries(template.Resources).filter(([id]) => !dropped.includes(id)),
    ),
    Outputs: Object.fromEntries(
      Object.entries(template.Outputs ?? {}).filter(([, output]) => !names(output)),
    ),
  };
};

/** Whether osls compiled `fn` with Active tracing, for which Lambda requires X-Ray writes. */
export const tracesActively = (fn: Resource): boolean =>
  (fn.Properties?.TracingConfig as { Mode?: unknown } | undefined)?.Mode === 'Active';

/** The statement that lets a function with Active tracing write its traces. */
export const xrayStatement = () => ({
  Effect: 'Allow',
  Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
  Resource: ['*'],
});

/**
 * A function osls compiled (`OrdersPerDayLambdaFunction`) and what it compiled with it: its log
 * group, its versions and its schedule's rule and permission.
 */
export const compiledFunctionResources = (template: Template, fn: string): string[] => {
  const base = fn.replace(/LambdaFunction$/, '');
  return Object.entries(template.Resources)
    .filter(
      ([id, resource]) =>
        id === fn ||
        id === `${base}LogGroup` ||
        id.startsWith(`${base}EventsRuleSchedule`) ||
        id.startsWith(`${base}LambdaPermissionEventsRuleSchedule`) ||
        (resource.Type === 'AWS::Lambda::Version' &&
          refOf(resource.Properties?.FunctionName) === fn),
    )
    .map(([id]) => id);
};

/**
 * `fn` on a role of its own (`roleId`), with `timeout` and only `variables`, without the VPC or
 * layers osls gives every function: a function that calls AWS's APIs only.
 */
export const onOwnRole = (
  fn: Resource,
  {
    roleId,
    timeout,
    variables,
  }: { roleId: string; timeout: number; variables: Record<string, unknown> },
): Resource => {
  const {
    Layers: _layers,
    VpcConfig: _vpc,
    Environment: _environment,
    ...properties
  } = fn.Properties ?? {};
  return {
    ...fn,
    Properties: {
      ...properties,
      Role: { 'Fn::GetAtt': [roleId, 'Arn'] },
      Timeout: timeout,
      Environment: { Variables: variables },
    },
    DependsOn: [fn.DependsOn ?? []].flat().filter((id) => id !== 'IamRoleLambdaExecution'),
  };
};
