/**
 * What AWS enforces when it deploys the template and cfn-lint does not see, checked over the
 * template `serverless package` writes: each problem one line naming the logical id. Packaging
 * fails on templateProblems (refuseTemplateProblems, from tools/serverless/operations.js);
 * alarmsWithoutActions is reported apart, for packaging to say.
 *
 * Each AWS::Lambda::Function's role (its Role, the Arn of an AWS::IAM::Role of the template: the
 * role's inline Policies and, of its ManagedPolicyArns, the AWS-managed policies of
 * MANAGED_POLICIES) grants
 * - xray:PutTraceSegments and xray:PutTelemetryRecords when TracingConfig.Mode is Active, and
 *   ec2:CreateNetworkInterface, ec2:DescribeNetworkInterfaces and ec2:DeleteNetworkInterface when
 *   VpcConfig is set: Lambda refuses to create the function otherwise;
 * - logs:CreateLogStream and logs:PutLogEvents on a stream of its log group
 *   (LoggingConfig.LogGroup, else /aws/lambda/<FunctionName>): otherwise it runs without logs;
 * - secretsmanager:GetSecretValue on the secret its DATABASE_SECRET_ARN names, when set:
 *   otherwise every query fails.
 * A kms:Decrypt the role allows must be limited to that secret read through Secrets Manager, as
 * tools/serverless/database.cjs writes it: StringEquals kms:ViaService
 * `secretsmanager.<the secret's region>.amazonaws.com` and kms:EncryptionContext:SecretARN the
 * secret. None at all is no problem: the template does not say which key encrypts the secret, and
 * one under AWS's own key needs none.
 *
 * The pre-traffic hook (tools/generators/pre-traffic.ts), when the template has it, waits for
 * each invocation longer than every function it checks may run (PRE_TRAFFIC_INVOKE_TIMEOUT_MS
 * above each one's Timeout), and its own Timeout holds its invocations, the report and its own
 * work (hookTimeoutSecondsFor, functions/release/bounds.ts). Its role grants
 * lambda:InvokeFunction on each version its PRE_TRAFFIC_TARGETS name (a published version of its
 * function, `${Fn.Arn}:<number>`, which `${Fn.Arn}:*` covers; or the version's Ref); an Allow,
 * even under a condition or by NotResource, that reaches one of those functions' aliases (by
 * their Ref or ARN), `$LATEST` or unqualified ARN must meet a Deny of it without a condition, and
 * none may reach any other function; its policy names no AWS::Lambda::Version, so it does not
 * change on every deploy (IAM is eventually consistent: a policy rewritten with the new versions
 * may refuse the hook the version it checks); and it grants codedeploy:GetDeployment and
 * codedeploy:PutLifecycleEventHookExecutionStatus on the deployment group of each alias whose
 * update policy runs the hook: otherwise every release of that function fails.
 *
 * A grant is an Allow statement without Condition, NotAction or NotResource whose Action and
 * Resource match (IAM's `*` and `?`, actions in any case), and no Deny statement matching. The
 * template's intrinsic functions are read as text (textOf): a log group's Ref and Arn become its
 * name and ARN, pseudo parameters stay as `${AWS::Region}`, so a policy names them as the
 * template's ARNs do (osls's do).
 */
import { hookTimeoutSecondsFor } from '../../functions/release/bounds';
import { parseInvokeTimeout, PreTrafficConfigError } from '../../functions/release/environment';
import { arnOf, resourcesOfType, type Resource, type Template } from './cloudformation';
import { PRE_TRAFFIC_LOGICAL_ID, timeoutOf } from './pre-traffic';

type Fields = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A policy field that is one value or a list of them, as a list. */
const listOf = (value: unknown): readonly unknown[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** A log group's ARN before its name, with the pseudo parameters as osls writes them. */
const LOG_GROUP_ARN_PREFIX =
  'arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:';
/** A stream of a function's log group, as Lambda names them. */
const LOG_STREAM = 'log-stream:2025/01/01/[$LATEST]0123456789abcdef0123456789abcdef';
/** What an action that takes no resource ARN is asked on. */
const ANY_RESOURCE = '*';

/**
 * `value` as text: strings as they are, Fn::Join and Fn::Sub rendered, a log group's Ref its
 * name and its Arn its ARN, every other Ref and attribute as `${Id}` and `${Id.Attribute}`;
 * undefined when it cannot be read.
 */
export const textOf = (template: Template, value: unknown): string | undefined => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (!isObject(value)) return undefined;
  if (typeof value.Ref === 'string') return refText(template, value.Ref);
  if (value['Fn::GetAtt'] !== undefined) {
    const getAtt = value['Fn::GetAtt'];
    const [id, attribute] = typeof getAtt === 'string' ? getAtt.split('.') : listOf(getAtt);
    if (typeof id !== 'string' || typeof attribute !== 'string') return undefined;
    return attributeText(template, id, attribute);
  }
  if (value['Fn::Join'] !== undefined) return joinText(template, value['Fn::Join']);
  if (value['Fn::Sub'] !== undefined) return subText(template, value['Fn::Sub']);
  return undefined;
};

const logGroupName = (template: Template, id: string): string | undefined => {
  const group = template.Resources[id];
  return group?.Type === 'AWS::Logs::LogGroup'
    ? textOf(template, group.Properties?.LogGroupName)
    : undefined;
};

const refText = (template: Template, id: string): string =>
  logGroupName(template, id) ?? `\${${id}}`;

const attributeText = (template: Template, id: string, attribute: string): string => {
  const name = attribute === 'Arn' ? logGroupName(template, id) : undefined;
  // A log group's Arn attribute ends with :*, its streams.
  return name === undefined ? `\${${id}.${attribute}}` : `${LOG_GROUP_ARN_PREFIX}${name}:*`;
};

const joinText = (template: Template, join: unknown): string | undefined => {
  const [separator, parts] = listOf(join);
  if (typeof separator !== 'string' || !Array.isArray(parts)) return undefined;
  const texts = parts.map((part) => textOf(template, part));
  return texts.every((text) => text !== undefined) ? texts.join(separator) : undefined;
};

/** One part of an Fn::Sub body: text as it is, a `${…}` placeholder rendered. */
const placeholderText = (template: Template, part: string, variables: Fields) => {
  const match = /^\$\{(!?)([^}]*)\}$/.exec(part);
  if (!match) return part;
  const [, literal, name = ''] = match;
  if (literal || name.startsWith('AWS::')) return `\${${name}}`;
  if (Object.hasOwn(variables, name)) return textOf(template, variables[name]);
  const [id = '', attribute] = name.split('.');
  return attribute === undefined ? refText(template, id) : attributeText(template, id, attribute);
};

const subText = (template: Template, sub: unknown): string | undefined => {
  const [body, variables] = typeof sub === 'string' ? [sub, {}] : listOf(sub);
  if (typeof body !== 'string' || !isObject(variables)) return undefined;
  const texts = body
    .split(/(\$\{!?[^}]*\})/)
    .map((part) => placeholderText(template, part, variables));
  return texts.every((text) => text !== undefined) ? texts.join('') : undefined;
};

/** `pattern` with IAM's wildcards: `*` any run of characters, `?` any one. */
const wildcard = (pattern: string, flags: string): RegExp =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\/-]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    flags,
  );

interface Statement {
  readonly Effect?: unknown;
  readonly Action?: unknown;
  readonly NotAction?: unknown;
  readonly Resource?: unknown;
  readonly NotResource?: unknown;
  readonly Condition?: unknown;
}

/**
 * What the AWS-managed policies a function role may carry grant, of what these checks ask (a
 * part of each policy, by its name).
 */
const MANAGED_POLICIES: Readonly<Record<string, readonly Statement[]>> = {
  AWSLambdaBasicExecutionRole: [
    {
      Effect: 'Allow',
      Action: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
      Resource: '*',
    },
  ],
  AWSLambdaVPCAccessExecutionRole: [
    {
      Effect: 'Allow',
      Action: [
        'logs:CreateLogGroup',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'ec2:CreateNetworkInterface',
        'ec2:DescribeNetworkInterfaces',
        'ec2:DeleteNetworkInterface',
      ],
      Resource: '*',
    },
  ],
  AWSLambdaENIManagementAccess: [
    {
      Effect: 'Allow',
      Action: [
        'ec2:CreateNetworkInterface',
        'ec2:DescribeNetworkInterfaces',
        'ec2:DeleteNetworkInterface',
      ],
      Resource: '*',
    },
  ],
  AWSXRayDaemonWriteAccess: [
    {
      Effect: 'Allow',
      Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
      Resource: '*',
    },
  ],
};
const MANAGED_POLICY_ARN =
  /^arn:(?:\$\{AWS::Partition\}|aws(?:-[a-z]+)*):iam::aws:policy\/(?:service-role\/)?([\w+=,.@-]+)$/;

/** Every statement of `role`: its inline policies', and its known managed policies'. */
const statementsOf = (template: Template, role: Resource): readonly Statement[] => {
  const inline = listOf(role.Properties?.Policies).flatMap((policy) =>
    isObject(policy) && isObject(policy.PolicyDocument)
      ? listOf(policy.PolicyDocument.Statement).filter(isObject)
      : [],
  );
  const managed = listOf(role.Properties?.ManagedPolicyArns).flatMap((arn) => {
    const name = MANAGED_POLICY_ARN.exec(textOf(template, arn) ?? '')?.[1];
    return name === undefined ? [] : (MANAGED_POLICIES[name] ?? []);
  });
  return [...inline, ...managed];
};

/** Whether one of `patterns` (a policy's Action or Resource) matches `value`. */
const anyMatches = (template: Template, patterns: unknown, value: string, flags = ''): boolean =>
  listOf(patterns).some((pattern) => {
    const text = textOf(template, pattern);
    return text !== undefined && wildcard(text, flags).test(value);
  });

const appliesTo = (template: Template, statement: Statement, action: string, resource: string) =>
  anyMatches(template, statement.Action, action, 'i') &&
  anyMatches(template, statement.Resource, resource);

/** Whether `statements` grant `action` on `resource` (see the module's comment). */
const grants = (
  template: Template,
  statements: readonly Statement[],
  action: string,
  resource: string,
): boolean =>
  statements.some(
    (statement) =>
      statement.Effect === 'Allow' &&
      statement.Condition === undefined &&
      statement.NotAction === undefined &&
      statement.NotResource === undefined &&
      appliesTo(template, statement, action, resource),
  ) &&
  !statements.some(
    (statement) => statement.Effect === 'Deny' && appliesTo(template, statement, action, resource),
  );

/** A function of the template with its role, as the checks below read it. */
interface CheckedFunction {
  readonly template: Template;
  readonly id: string;
  readonly properties: Fields;
  readonly roleId: string;
  readonly statements: readonly Statement[];
}

/** `fn`'s actions of `actions` its role does not grant on `resource`. */
const missing = (fn: CheckedFunction, actions: readonly string[], resource: string): string[] =>
  actions.filter((action) => !grants(fn.template, fn.statements, action, resource));

const XRAY_ACTIONS = ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'];
const NETWORK_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DeleteNetworkInterface',
];
const LOG_ACTIONS = ['logs:CreateLogStream', 'logs:PutLogEvents'];
const SECRET_ACTION = 'secretsmanager:GetSecretValue';
const DECRYPT_ACTION = 'kms:Decrypt';

const tracingProblems = (fn: CheckedFunction): string[] => {
  const tracing = fn.properties.TracingConfig;
  if (!isObject(tracing) || tracing.Mode !== 'Active') return [];
  const absent = missing(fn, XRAY_ACTIONS, ANY_RESOURCE);
  return absent.length === 0
    ? []
    : [
        `${fn.id}: TracingConfig is Active, but its role ${fn.roleId} grants no ${absent.join(', ')}: Lambda refuses to create it`,
      ];
};

const networkProblems = (fn: CheckedFunction): string[] => {
  if (fn.properties.VpcConfig === undefined) return [];
  const absent = missing(fn, NETWORK_ACTIONS, ANY_RESOURCE);
  return absent.length === 0
    ? []
    : [
        `${fn.id}: VpcConfig is set, but its role ${fn.roleId} grants no ${absent.join(', ')} (or AWSLambdaVPCAccessExecutionRole): Lambda refuses to create it`,
      ];
};

/** The name of `fn`'s log group: LoggingConfig.LogGroup, else /aws/lambda/<FunctionName>. */
const logGroupOf = (fn: CheckedFunction): string | undefined => {
  const logging = fn.properties.LoggingConfig;
  if (isObject(logging) && logging.LogGroup !== undefined) {
    return textOf(fn.template, logging.LogGroup);
  }
  const name = textOf(fn.template, fn.properties.FunctionName);
  return name === undefined ? undefined : `/aws/lambda/${name}`;
};

const logProblems = (fn: CheckedFunction): string[] => {
  const group = logGroupOf(fn);
  if (group === undefined) {
    return [
      `${fn.id}: neither LoggingConfig.LogGroup nor FunctionName names its log group, so its role's log permissions cannot be checked`,
    ];
  }
  const absent = missing(fn, LOG_ACTIONS, `${LOG_GROUP_ARN_PREFIX}${group}:${LOG_STREAM}`);
  return absent.length === 0
    ? []
    : [
        `${fn.id}: its role ${fn.roleId} grants no ${absent.join(', ')} on its log group ${group}: it would run without logs`,
      ];
};

/** The secret `fn`'s DATABASE_SECRET_ARN names; undefined when unset or empty. */
const secretOf = (fn: CheckedFunction): string | undefined => {
  const environment = fn.properties.Environment;
  const variables = isObject(environment) ? environment.Variables : undefined;
  const secret = isObject(variables)
    ? textOf(fn.template, variables.DATABASE_SECRET_ARN)
    : undefined;
  return secret === '' ? undefined : secret;
};

const secretProblems = (fn: CheckedFunction): string[] => {
  const secret = secretOf(fn);
  if (secret === undefined || missing(fn, [SECRET_ACTION], secret).length === 0) return [];
  return [
    `${fn.id}: its role ${fn.roleId} grants no ${SECRET_ACTION} on its DATABASE_SECRET_ARN ${secret}: every query would fail`,
  ];
};

/** The values of `key` in `statement`'s StringEquals condition, as text. */
const stringEquals = (template: Template, statement: Statement, key: string): unknown[] => {
  const condition = isObject(statement.Condition) ? statement.Condition.StringEquals : undefined;
  return isObject(condition) ? listOf(condition[key]).map((value) => textOf(template, value)) : [];
};

/** Whether `statement` lets the key decrypt `secret` only, read through Secrets Manager. */
const limitedTo = (template: Template, statement: Statement, secret: string): boolean => {
  const region = secret.split(':')[3] ?? '';
  const only = (key: string, expected: string) => {
    const values = stringEquals(template, statement, key);
    return values.length > 0 && values.every((value) => value === expected);
  };
  return (
    only('kms:ViaService', `secretsmanager.${region}.amazonaws.com`) &&
    only('kms:EncryptionContext:SecretARN', secret)
  );
};

const decryptProblems = (fn: CheckedFunction): string[] => {
  const decrypts = fn.statements.filter(
    (statement) =>
      statement.Effect === 'Allow' &&
      anyMatches(fn.template, statement.Action, DECRYPT_ACTION, 'i'),
  );
  if (decrypts.length === 0) return [];
  const secret = secretOf(fn);
  if (secret === undefined) {
    return [
      `${fn.id}: its role ${fn.roleId} allows ${DECRYPT_ACTION}, but it reads no DATABASE_SECRET_ARN: the key decrypts only the database secret`,
    ];
  }
  return decrypts.every((statement) => limitedTo(fn.template, statement, secret))
    ? []
    : [
        `${fn.id}: its role ${fn.roleId} allows ${DECRYPT_ACTION} beyond its secret: each such statement needs StringEquals kms:ViaService secretsmanager.${secret.split(':')[3] ?? ''}.amazonaws.com and kms:EncryptionContext:SecretARN ${secret}`,
      ];
};

const FUNCTION_CHECKS: readonly ((fn: CheckedFunction) => string[])[] = [
  tracingProblems,
  networkProblems,
  logProblems,
  secretProblems,
  decryptProblems,
];

/** What the role of the function `id` fails to grant it, or allows beyond its secret. */
const functionProblems = (template: Template, id: string, fn: Resource): string[] => {
  const properties = fn.Properties ?? {};
  const roleId = arnOf(properties.Role);
  const role = roleId === undefined ? undefined : template.Resources[roleId];
  if (roleId === undefined || role?.Type !== 'AWS::IAM::Role') {
    return [
      `${id}: its Role is not the Arn of an AWS::IAM::Role of the template, so what it may do cannot be checked`,
    ];
  }
  const checked = { template, id, properties, roleId, statements: statementsOf(template, role) };
  return FUNCTION_CHECKS.flatMap((check) => check(checked));
};

/** Every Ref in `value`, however deep. */
const refsIn = (value: unknown): string[] => {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (!isObject(value)) return [];
  return typeof value.Ref === 'string' ? [value.Ref] : Object.values(value).flatMap(refsIn);
};

/** The functions whose versions the hook's PRE_TRAFFIC_TARGETS name. */
const checkedBy = (template: Template, targets: unknown): string[] =>
  refsIn(targets).flatMap((id) => {
    const version = template.Resources[id];
    const fn = version?.Type === 'AWS::Lambda::Version' ? version.Properties?.FunctionName : null;
    const fnId = isObject(fn) && typeof fn.Ref === 'string' ? fn.Ref : undefined;
    return fnId === undefined ? [] : [fnId];
  });

const INVOKE_ACTION = 'lambda:InvokeFunction';
const DEPLOYMENT_ACTIONS = [
  'codedeploy:GetDeployment',
  'codedeploy:PutLifecycleEventHookExecutionStatus',
];

/** Whether one of `patterns` matches `value`, or, for a Not element, none does. */
const covers = (
  template: Template,
  listed: unknown,
  notListed: unknown,
  value: string,
  flags = '',
): boolean =>
  notListed === undefined
    ? anyMatches(template, listed, value, flags)
    : !anyMatches(template, notListed, value, flags);

/** Whether a Deny statement of `statements` without a condition refuses `action` on `resource`. */
const denies = (
  template: Template,
  statements: readonly Statement[],
  action: string,
  resource: string,
): boolean =>
  statements.some(
    (statement) =>
      statement.Effect === 'Deny' &&
      statement.Condition === undefined &&
      covers(template, statement.Action, statement.NotAction, action, 'i') &&
      covers(template, statement.Resource, statement.NotResource, resource),
  );

/** Whether an Allow statement of `statements` may let `action` on `resource`, under any condition. */
const mayAllow = (
  template: Template,
  statements: readonly Statement[],
  action: string,
  resource: string,
): boolean =>
  statements.some(
    (statement) =>
      statement.Effect === 'Allow' &&
      covers(template, statement.Action, statement.NotAction, action, 'i') &&
      covers(template, statement.Resource, statement.NotResource, resource),
  );

/** The hook's role: its logical id and statements, when its Role is a role of the template. */
const hookRoleOf = (template: Template, hook: Resource) => {
  const roleId = arnOf(hook.Properties?.Role);
  const role = roleId === undefined ? undefined : template.Resources[roleId];
  return roleId === undefined || role?.Type !== 'AWS::IAM::Role'
    ? undefined
    : { roleId, statements: statementsOf(template, role) };
};

/** One thing the hook must not invoke: what a problem calls it, and every name of it in the template. */
interface Forbidden {
  readonly label: string;
  readonly names: readonly string[];
}

/** A published version's number, as the ARN of any version of a function ends. */
const SAMPLE_VERSION = '1';
/** A function outside the template, by its unqualified ARN. */
const OUTSIDE_FUNCTION =
  'arn:${AWS::Partition}:lambda:${AWS::Region}:${AWS::AccountId}:function:another-function';

/** What of the function `fn` the hook checks it must not invoke: its unqualified ARN, `$LATEST`, its aliases. */
const notToInvoke = (template: Template, fn: string): Forbidden[] => [
  { label: `\${${fn}.Arn}`, names: [`\${${fn}.Arn}`] },
  { label: `\${${fn}.Arn}:$LATEST`, names: [`\${${fn}.Arn}:$LATEST`] },
  ...resourcesOfType(template, 'AWS::Lambda::Alias')
    .filter(([, alias]) => refsIn(alias.Properties?.FunctionName).includes(fn))
    .map(([id, alias]) => {
      const arn = `\${${fn}.Arn}:${textOf(template, alias.Properties?.Name) ?? ''}`;
      return { label: arn, names: [arn, `\${${id}}`] };
    }),
];

/** The functions the hook does not check: the template's others, and one outside it. */
const notChecked = (template: Template, checked: readonly string[]): Forbidden[] => [
  ...resourcesOfType(template, 'AWS::Lambda::Function')
    .filter(([id]) => !checked.includes(id))
    .flatMap(([id]) =>
      ['', ':$LATEST', `:${SAMPLE_VERSION}`].map((qualifier) => ({
        label: `\${${id}.Arn}`,
        names: [`\${${id}.Arn}${qualifier}`],
      })),
    ),
  ...['', `:${SAMPLE_VERSION}`].map((qualifier) => ({
    label: 'functions outside the template',
    names: [`${OUTSIDE_FUNCTION}${qualifier}`],
  })),
];

/** The labels of `forbidden` an Allow of `statements` may reach and no Deny refuses, once each. */
const invocable = (
  template: Template,
  statements: readonly Statement[],
  forbidden: readonly Forbidden[],
): string[] => [
  ...new Set(
    forbidden
      .filter(
        ({ names }) =>
          names.some((name) => mayAllow(template, statements, INVOKE_ACTION, name)) &&
          !names.some((name) => denies(template, statements, INVOKE_ACTION, name)),
      )
      .map(({ label }) => label),
  ),
];

/** The AWS::Lambda::Versions `statements` name: each changes on every deploy. */
const versionsNamed = (template: Template, statements: readonly Statement[]): string[] => {
  const text = JSON.stringify(statements);
  return resourcesOfType(template, 'AWS::Lambda::Version')
    .map(([id]) => id)
    .filter(
      (id) => text.includes(`"${id}"`) || text.includes(`\${${id}}`) || text.includes(`\${${id}.`),
    );
};

/**
 * The hook's role: each version it checks invocable, by a policy that names no version; none of
 * their functions' aliases, `$LATEST` or unqualified ARN, nor any other function.
 */
const hookInvokeProblems = (
  template: Template,
  { roleId, statements }: { roleId: string; statements: readonly Statement[] },
  targets: unknown,
): string[] => {
  const versionIds = refsIn(targets).filter(
    (id) => template.Resources[id]?.Type === 'AWS::Lambda::Version',
  );
  const functionIds = versionIds.map(
    (id) => refsIn(template.Resources[id]?.Properties?.FunctionName)[0] ?? '',
  );
  const perVersion = versionIds.flatMap((versionId, index) => {
    const fn = functionIds[index] ?? '';
    const granted = [`\${${fn}.Arn}:${SAMPLE_VERSION}`, `\${${versionId}}`].some((version) =>
      grants(template, statements, INVOKE_ACTION, version),
    );
    const beyond = invocable(template, statements, notToInvoke(template, fn));
    return [
      ...(granted
        ? []
        : [
            `${PRE_TRAFFIC_LOGICAL_ID}: its role ${roleId} grants no ${INVOKE_ACTION} on ${versionId}, a version it checks: its release would fail`,
          ]),
      ...(beyond.length === 0
        ? []
        : [
            `${PRE_TRAFFIC_LOGICAL_ID}: its role ${roleId} allows ${INVOKE_ACTION} on ${beyond.join(', ')} and denies it not: it may invoke only published versions of the functions it checks`,
          ]),
    ];
  });
  const others = invocable(template, statements, notChecked(template, functionIds));
  const named = versionsNamed(template, statements);
  return [
    ...perVersion,
    ...(others.length === 0
      ? []
      : [
          `${PRE_TRAFFIC_LOGICAL_ID}: its role ${roleId} allows ${INVOKE_ACTION} on ${others.join(', ')}, which it does not check: it may invoke only published versions of the functions it checks`,
        ]),
    ...(named.length === 0
      ? []
      : [
          `${PRE_TRAFFIC_LOGICAL_ID}: its role ${roleId} names ${named.join(', ')}, changed on every deploy: IAM, eventually consistent, may refuse the hook the new version; allow \${<function>.Arn}:* instead`,
        ]),
  ];
};

/** The deployment group of an alias whose update policy runs the hook, as an ARN. */
const deploymentGroupArn = (template: Template, update: Fields): string =>
  `arn:\${AWS::Partition}:codedeploy:\${AWS::Region}:\${AWS::AccountId}:deploymentgroup:${
    textOf(template, update.ApplicationName) ?? ''
  }/${textOf(template, update.DeploymentGroupName) ?? ''}`;

/** The hook's role: reading and reporting each deployment that runs it. */
const hookDeploymentProblems = (
  template: Template,
  { roleId, statements }: { roleId: string; statements: readonly Statement[] },
): string[] =>
  resourcesOfType(template, 'AWS::Lambda::Alias').flatMap(([aliasId, alias]) => {
    const update = alias.UpdatePolicy?.CodeDeployLambdaAliasUpdate;
    if (
      !isObject(update) ||
      !refsIn(update.BeforeAllowTrafficHook).includes(PRE_TRAFFIC_LOGICAL_ID)
    ) {
      return [];
    }
    const group = deploymentGroupArn(template, update);
    const absent = DEPLOYMENT_ACTIONS.filter(
      (action) => !grants(template, statements, action, group),
    );
    return absent.length === 0
      ? []
      : [
          `${aliasId}: its release runs ${PRE_TRAFFIC_LOGICAL_ID}, whose role ${roleId} grants no ${absent.join(', ')} on its deployment group ${group}: every release of it would fail`,
        ];
  });

const preTrafficProblems = (template: Template): string[] => {
  const hook = template.Resources[PRE_TRAFFIC_LOGICAL_ID];
  if (!hook) return [];
  const environment = hook.Properties?.Environment;
  const variables =
    isObject(environment) && isObject(environment.Variables) ? environment.Variables : {};
  let boundMs: number;
  try {
    boundMs = parseInvokeTimeout(textOf(template, variables.PRE_TRAFFIC_INVOKE_TIMEOUT_MS));
  } catch (error) {
    if (!(error instanceof PreTrafficConfigError)) throw error;
    return [`${PRE_TRAFFIC_LOGICAL_ID}: ${error.message}`];
  }
  const slow = checkedBy(template, variables.PRE_TRAFFIC_TARGETS).flatMap((id) => {
    const seconds = timeoutOf(template.Resources[id]);
    return seconds * 1000 < boundMs
      ? []
      : [
          `${id}: its Timeout of ${seconds} s is not below the ${boundMs} ms ${PRE_TRAFFIC_LOGICAL_ID} waits for each invocation (PRE_TRAFFIC_INVOKE_TIMEOUT_MS): a version that times out would be taken for one that never answers`,
        ];
  });
  const needed = hookTimeoutSecondsFor(boundMs);
  const hookTimeout = timeoutOf(hook);
  const role = hookRoleOf(template, hook);
  return [
    ...slow,
    ...(hookTimeout >= needed
      ? []
      : [
          `${PRE_TRAFFIC_LOGICAL_ID}: its Timeout of ${hookTimeout} s leaves no room for two invocations of ${boundMs} ms, the report and its own work: it needs ${needed} s`,
        ]),
    // A Role that is no role of the template is functionProblems' to say.
    ...(role === undefined
      ? []
      : [
          ...hookInvokeProblems(template, role, variables.PRE_TRAFFIC_TARGETS),
          ...hookDeploymentProblems(template, role),
        ]),
  ];
};

/** Every problem AWS would refuse or break on at deploy time, one line each. */
export const templateProblems = (template: Template): string[] => [
  ...resourcesOfType(template, 'AWS::Lambda::Function').flatMap(([id, fn]) =>
    functionProblems(template, id, fn),
  ),
  ...preTrafficProblems(template),
];

/**
 * Throws when the template has problems: an Error of a line saying what they are, then one line
 * each, whose stack is its message, so that osls prints it without a trace.
 */
export const refuseTemplateProblems = (template: Template): void => {
  const problems = templateProblems(template);
  if (problems.length === 0) return;
  const error = new Error(
    [
      `the template breaks what AWS enforces at deploy time (docs/operations.md, "Template checks"):`,
      ...problems,
    ].join('\n'),
  );
  error.stack = error.message;
  throw error;
};

/**
 * The alarms of the template that notify nobody, one line each: packaging says so for a stage
 * whose alarms are on without a topic (tools/generators/settings-check.ts), and refuses nothing.
 */
export const alarmsWithoutActions = (template: Template): string[] =>
  resourcesOfType(template, 'AWS::CloudWatch::Alarm')
    .filter(([, alarm]) => listOf(alarm.Properties?.AlarmActions).length === 0)
    .map(([id]) => `${id}: an alarm without AlarmActions notifies nobody`);
