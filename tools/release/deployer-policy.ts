/**
 * The deployer's permissions (docs/deployment.md, "Preflight"; docs/deployer-policy.json): what
 * `npm run deploy` and `serverless deploy` call with the deployer's credentials, and what
 * CloudFormation then calls with them to create, update and delete each resource of the
 * template. Three sources, each read where it is written:
 *
 * - the AWS SDK operations the release tool imports (tools/release/*.ts);
 * - those of osls's deploy, deploy list, rollback and deletion-protection code (OSLS_FILES);
 * - each resource type's create, update and delete calls (RESOURCE_ACTIONS), for every type a
 *   packaged template holds: a type missing here is itself a problem.
 *
 * `missingActions` names what a policy does not allow.
 */

/** osls's sources `serverless deploy`, `deploy list` and `rollback` run, under node_modules/osls. */
export const OSLS_FILES = [
  'lib/plugins/aws/deploy/lib/check-for-changes.js',
  'lib/plugins/aws/deploy/lib/cleanup-s3-bucket.js',
  'lib/plugins/aws/deploy/lib/create-stack.js',
  'lib/plugins/aws/deploy/lib/ensure-valid-bucket-exists.js',
  'lib/plugins/aws/deploy/lib/upload-artifacts.js',
  'lib/plugins/aws/deploy/lib/validate-template.js',
  'lib/plugins/aws/lib/check-if-bucket-exists.js',
  'lib/plugins/aws/lib/monitor-stack.js',
  'lib/plugins/aws/lib/update-stack.js',
  'lib/plugins/aws/lib/upload-s3-object.js',
  'lib/plugins/aws/lib/wait-for-change-set-creation.js',
  'lib/plugins/aws/deletion-protection.js',
  'lib/plugins/aws/deploy-list.js',
  'lib/plugins/aws/rollback.js',
  'lib/plugins/aws/info/get-resource-count.js',
];

/**
 * Operations of those sources that this service never reaches: container images (ECR), HTTP
 * APIs (API Gateway v2) and API keys, none of which serverless.yml declares.
 */
const UNREACHED = new Set([
  'ecr:DescribeRepositories',
  'ecr:CreateRepository',
  'ecr:GetAuthorizationToken',
  'ecr:PutLifecyclePolicy',
  'ecr:DescribeImages',
  'apigatewayv2:GetApi',
  'apigateway:GetApiKey',
  'logs:DescribeSubscriptionFilters',
  'logs:DeleteSubscriptionFilter',
]);

/** An SDK client package's IAM prefix, where they differ. */
const PREFIXES: Readonly<Record<string, string>> = {
  'api-gateway': 'apigateway',
  apigatewayv2: 'apigatewayv2',
  'cloudwatch-logs': 'logs',
  'secrets-manager': 'secretsmanager',
};

/** API Gateway authorises by HTTP method, S3 and STS by actions of their own. */
const actionsOf = (prefix: string, operation: string): string[] => {
  const key = `${prefix}:${operation}`;
  if (UNREACHED.has(key)) return [];
  if (prefix === 'apigateway') {
    const verb = /^(Get|Create|Update|Delete|Put)/.exec(operation)?.[1];
    const method = { Get: 'GET', Create: 'POST', Update: 'PATCH', Delete: 'DELETE', Put: 'PUT' };
    return [`apigateway:${verb ? method[verb as keyof typeof method] : operation}`];
  }
  const exceptions: Readonly<Record<string, readonly string[]>> = {
    's3:HeadBucket': ['s3:ListBucket'],
    's3:HeadObject': ['s3:GetObject'],
    's3:ListObjectsV2': ['s3:ListBucket'],
    's3:DeleteObjects': ['s3:DeleteObject'],
    // lib-storage's Upload: PutObject, or a multipart upload under the same permission.
    's3:Upload': ['s3:PutObject', 's3:AbortMultipartUpload'],
    // Every principal may ask who it is.
    'sts:GetCallerIdentity': [],
  };
  return [...(exceptions[key] ?? [key])];
};

/** The IAM actions of the SDK operations `source` (JavaScript or TypeScript) imports. */
export const sdkActionsIn = (source: string): string[] => {
  const actions = new Set<string>();
  const imports =
    /(?:const\s*\{([^}]*)\}\s*=\s*require\(\s*'@aws-sdk\/([a-z0-9-]+)'\s*\))|(?:import\s*\{([^}]*)\}\s*from\s*'@aws-sdk\/([a-z0-9-]+)')/g;
  for (const match of source.matchAll(imports)) {
    const names = (match[1] ?? match[3] ?? '')
      .split(',')
      .map((n) => n.replace(/\btype\b/, '').trim());
    const pkg = match[2] ?? match[4] ?? '';
    const client = pkg === 'lib-storage' ? 's3' : pkg.replace(/^client-/, '');
    const prefix = PREFIXES[client] ?? client;
    for (const name of names) {
      const operation =
        /^(\w+)Command$/.exec(name)?.[1] ??
        /^paginate(\w+)$/.exec(name)?.[1] ??
        (pkg === 'lib-storage' && name === 'Upload' ? 'Upload' : undefined);
      if (operation) for (const action of actionsOf(prefix, operation)) actions.add(action);
    }
  }
  return [...actions].sort();
};

const API_GATEWAY = [
  'apigateway:GET',
  'apigateway:POST',
  'apigateway:PUT',
  'apigateway:PATCH',
  'apigateway:DELETE',
];
const TAGS = (prefix: string) => [
  `${prefix}:TagResource`,
  `${prefix}:UntagResource`,
  `${prefix}:ListTagsForResource`,
];

/**
 * What CloudFormation calls, with the deployer's credentials, to create, update and delete each
 * resource type a template of this service holds (the types' handler permissions).
 */
export const RESOURCE_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  'AWS::ApiGateway::RestApi': API_GATEWAY,
  'AWS::ApiGateway::Resource': API_GATEWAY,
  'AWS::ApiGateway::Method': [...API_GATEWAY, 'iam:PassRole'],
  'AWS::ApiGateway::Deployment': API_GATEWAY,
  'AWS::ApiGateway::Stage': API_GATEWAY,
  'AWS::ApiGateway::GatewayResponse': API_GATEWAY,
  'AWS::ApiGateway::Account': [...API_GATEWAY, 'iam:PassRole'],
  'AWS::ApiGateway::DomainName': [...API_GATEWAY, 'acm:DescribeCertificate'],
  'AWS::ApiGateway::BasePathMapping': API_GATEWAY,
  'AWS::CloudWatch::Alarm': [
    'cloudwatch:PutMetricAlarm',
    'cloudwatch:DescribeAlarms',
    'cloudwatch:DeleteAlarms',
    ...TAGS('cloudwatch'),
  ],
  'AWS::CloudWatch::Dashboard': [
    'cloudwatch:PutDashboard',
    'cloudwatch:GetDashboard',
    'cloudwatch:DeleteDashboards',
    'cloudwatch:ListDashboards',
    ...TAGS('cloudwatch'),
  ],
  'AWS::CodeDeploy::Application': [
    'codedeploy:CreateApplication',
    'codedeploy:GetApplication',
    'codedeploy:DeleteApplication',
    ...TAGS('codedeploy'),
  ],
  'AWS::CodeDeploy::DeploymentGroup': [
    'codedeploy:CreateDeploymentGroup',
    'codedeploy:GetDeploymentGroup',
    'codedeploy:UpdateDeploymentGroup',
    'codedeploy:DeleteDeploymentGroup',
    'iam:PassRole',
  ],
  'AWS::Events::Rule': [
    'events:PutRule',
    'events:DescribeRule',
    'events:DeleteRule',
    'events:PutTargets',
    'events:RemoveTargets',
    'events:ListTargetsByRule',
  ],
  'AWS::IAM::Role': [
    'iam:CreateRole',
    'iam:GetRole',
    'iam:DeleteRole',
    'iam:UpdateAssumeRolePolicy',
    'iam:PutRolePolicy',
    'iam:GetRolePolicy',
    'iam:DeleteRolePolicy',
    'iam:ListRolePolicies',
    'iam:AttachRolePolicy',
    'iam:DetachRolePolicy',
    'iam:ListAttachedRolePolicies',
    'iam:TagRole',
    'iam:UntagRole',
  ],
  'AWS::Lambda::Function': [
    'lambda:CreateFunction',
    'lambda:GetFunction',
    'lambda:GetFunctionConfiguration',
    'lambda:UpdateFunctionCode',
    'lambda:UpdateFunctionConfiguration',
    'lambda:DeleteFunction',
    'lambda:PutFunctionConcurrency',
    'lambda:DeleteFunctionConcurrency',
    'lambda:TagResource',
    'lambda:UntagResource',
    'lambda:ListTags',
    'iam:PassRole',
    's3:GetObject',
    'ec2:DescribeSecurityGroups',
    'ec2:DescribeSubnets',
    'ec2:DescribeVpcs',
  ],
  'AWS::Lambda::Version': [
    'lambda:PublishVersion',
    'lambda:GetFunctionConfiguration',
    'lambda:ListVersionsByFunction',
  ],
  // The alias's CodeDeployLambdaAliasUpdate: CloudFormation starts and follows the deployment.
  'AWS::Lambda::Alias': [
    'lambda:CreateAlias',
    'lambda:GetAlias',
    'lambda:UpdateAlias',
    'lambda:DeleteAlias',
    'codedeploy:CreateDeployment',
    'codedeploy:GetDeployment',
    'codedeploy:GetDeploymentConfig',
    'codedeploy:RegisterApplicationRevision',
    'codedeploy:GetApplicationRevision',
    'codedeploy:StopDeployment',
  ],
  'AWS::Lambda::Permission': [
    'lambda:AddPermission',
    'lambda:RemovePermission',
    'lambda:GetPolicy',
  ],
  'AWS::Logs::LogGroup': [
    'logs:CreateLogGroup',
    'logs:DescribeLogGroups',
    'logs:DeleteLogGroup',
    'logs:PutRetentionPolicy',
    'logs:DeleteRetentionPolicy',
    'logs:TagResource',
    'logs:UntagResource',
    'logs:ListTagsForResource',
  ],
  'AWS::S3::Bucket': [
    's3:CreateBucket',
    's3:DeleteBucket',
    's3:GetBucketLocation',
    's3:ListBucket',
    's3:PutEncryptionConfiguration',
    's3:PutBucketPublicAccessBlock',
    's3:PutBucketOwnershipControls',
    's3:PutBucketTagging',
  ],
  'AWS::S3::BucketPolicy': ['s3:PutBucketPolicy', 's3:GetBucketPolicy', 's3:DeleteBucketPolicy'],
  'AWS::WAFv2::WebACL': [
    'wafv2:CreateWebACL',
    'wafv2:GetWebACL',
    'wafv2:UpdateWebACL',
    'wafv2:DeleteWebACL',
    ...TAGS('wafv2'),
  ],
  'AWS::WAFv2::WebACLAssociation': [
    'wafv2:AssociateWebACL',
    'wafv2:DisassociateWebACL',
    'wafv2:GetWebACLForResource',
    'wafv2:GetWebACL',
    'apigateway:SetWebACL',
  ],
};

/** What a template's resources need of the deployer; and the types RESOURCE_ACTIONS lacks. */
export const templateActions = (
  types: Iterable<string>,
): { actions: string[]; unknownTypes: string[] } => {
  const actions = new Set<string>();
  const unknownTypes: string[] = [];
  for (const type of new Set(types)) {
    const needed = RESOURCE_ACTIONS[type];
    if (!needed) unknownTypes.push(type);
    for (const action of needed ?? []) actions.add(action);
  }
  return { actions: [...actions].sort(), unknownTypes: unknownTypes.sort() };
};

interface PolicyStatement {
  readonly Effect?: string;
  readonly Action?: string | readonly string[];
}

/** The actions of `required` that no Allow statement of `policy` grants (`svc:*`, `svc:Get*`). */
export const missingActions = (
  policy: { readonly Statement?: readonly PolicyStatement[] },
  required: Iterable<string>,
): string[] => {
  const allowed = (policy.Statement ?? [])
    .filter((statement) => statement.Effect === 'Allow')
    .flatMap((statement) => [statement.Action ?? []].flat());
  const grants = (pattern: string, action: string) =>
    pattern.endsWith('*')
      ? action.toLowerCase().startsWith(pattern.slice(0, -1).toLowerCase())
      : pattern.toLowerCase() === action.toLowerCase();
  return [...new Set(required)].filter((action) => !allowed.some((p) => grants(p, action))).sort();
};
