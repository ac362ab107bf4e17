/**
 * Local stand-ins for the AWS services the release code reads, each speaking its service's own
 * protocol, for the real SDK clients pointed at them through AWS_ENDPOINT_URL_<SERVICE>:
 *
 * - Lambda and API Gateway: REST-JSON (GET /2016-08-19/account-settings,
 *   GET /2019-09-30/functions/{name}/concurrency, GET /2015-03-31/functions/{name}, GET /account,
 *   GET /domainnames/{name}); errors by x-amzn-errortype.
 * - Secrets Manager, KMS, ACM, CloudWatch Logs, WAFv2 and CodeDeploy: JSON 1.1; CloudWatch:
 *   JSON 1.0 (POST / with X-Amz-Target).
 * - IAM and CloudFormation: the query protocol (a POSTed form, XML answers, ErrorResponse errors).
 * - EC2: the EC2 query protocol (a POSTed form, XML answers and XML errors).
 *
 * Each answers from the account state of the region the request was signed for (SigV4's
 * credential scope): IAM, a global service, signs for us-east-1, whose state holds the roles.
 * Each refuses a request signed for another service, or for an opt-in region the account has
 * not enabled, and records every call. Lists come in small pages, so that paging is exercised.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

export interface Certificate {
  /** The certificate's DomainName, also its first SubjectAlternativeName. */
  readonly domain: string;
  /** Further SubjectAlternativeNames. */
  readonly alternatives?: readonly string[];
  /** Default ISSUED. */
  readonly status?: 'ISSUED' | 'PENDING_VALIDATION' | 'EXPIRED' | 'REVOKED' | 'FAILED';
  /** The end of its validity: an issued certificate has one. */
  readonly notAfter?: Date;
}

/** One region of the account, as the services see it. Absent: an empty region. */
export interface RegionAccount {
  /** Lambda's account concurrency; default 1000, all unreserved. */
  concurrency?: { limit: number; unreserved: number };
  /** Existing functions, by name, with their reserved concurrency (0: none). */
  functions?: Record<string, number>;
  cloudWatchRoleArn?: string;
  /** Secrets by ARN. */
  secrets?: Record<string, { kmsKeyId?: string; deleted?: boolean }>;
  /** KMS keys by ARN: customer-managed unless `manager` says AWS; `alias` finds it too. */
  keys?: Record<
    string,
    { state: 'Enabled' | 'Disabled' | 'PendingDeletion'; manager?: 'AWS'; alias?: string }
  >;
  subnets?: Record<string, { zone: string; vpc: string }>;
  securityGroups?: Record<string, { vpc: string }>;
  alarms?: Record<string, { state: AlarmState; reason?: string }>;
  /** CloudWatch dashboards, by name. */
  dashboards?: string[];
  /** An opt-in region the account has not enabled: DescribeRegions says so, and its endpoints refuse. */
  disabled?: boolean;
  /** ACM certificates by ARN. */
  certificates?: Record<string, Certificate>;
  /** API Gateway's custom domain names. */
  domainNames?: string[];
  /** CloudWatch Logs' log groups. */
  logGroups?: string[];
  /** IAM roles: global, so the state of us-east-1, where IAM's calls are signed, holds them. */
  roles?: string[];
  /** Regional WAF web ACLs: name → id. */
  webAcls?: Record<string, string>;
  /** CodeDeploy applications. */
  applications?: string[];
  /** CloudFormation stacks by name: the physical ids of their resources. */
  stacks?: Record<string, string[]>;
}

export type Account = Record<string, RegionAccount>;

export interface AwsCall {
  readonly service: string;
  readonly region: string;
  readonly operation: string;
}

/** The credential scope of a SigV4 Authorization header: region and service. */
export const scopeOf = (request: IncomingMessage) => {
  const match = /Credential=[^/]+\/\d{8}\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request/.exec(
    request.headers.authorization ?? '',
  );
  return match ? { region: match[1]!, service: match[2]! } : undefined;
};

/** A request's whole body, as UTF-8. */
export const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });

type Answer = { status: number; headers?: Record<string, string>; body: string };

const json = (
  status: number,
  body: unknown,
  type = 'application/json',
  headers: Record<string, string> = {},
): Answer => ({
  status,
  headers: { 'content-type': type, ...headers },
  body: JSON.stringify(body),
});

const xml = (status: number, body: string): Answer => ({
  status,
  headers: { 'content-type': 'text/xml;charset=UTF-8' },
  body: `<?xml version="1.0" encoding="UTF-8"?>\n${body}`,
});

const escapeXml = (text: string) =>
  text.replace(/[<>&'"]/g, (c) => `&#${String(c.charCodeAt(0))};`);

const ACCOUNT_ID = '123456789012';

type Handler = (
  request: IncomingMessage,
  body: string,
  region: RegionAccount,
  regionName: string,
  account: Account,
) => { operation: string; answer: Answer };

/** A REST-JSON error: its type in x-amzn-errortype. */
const restError = (status: number, type: string, message: string) =>
  json(status, { message }, 'application/json', { 'x-amzn-errortype': type });

/** At most `size` items from the one after `token` (an index), and the next token if any. */
const page = <T>(items: readonly T[], token: string | undefined, size: number) => {
  const start = Number(token ?? '0');
  const next = start + size < items.length ? String(start + size) : undefined;
  return { items: items.slice(start, start + size), next };
};

const lambda: Handler = (request, _body, region, regionName) => {
  const url = request.url ?? '';
  if (request.method === 'GET' && url === '/2016-08-19/account-settings') {
    const { limit, unreserved } = region.concurrency ?? { limit: 1000, unreserved: 1000 };
    return {
      operation: 'GetAccountSettings',
      answer: json(200, {
        AccountLimit: {
          TotalCodeSize: 80530636800,
          CodeSizeUnzipped: 262144000,
          CodeSizeZipped: 52428800,
          ConcurrentExecutions: limit,
          UnreservedConcurrentExecutions: unreserved,
        },
        AccountUsage: {
          TotalCodeSize: 0,
          FunctionCount: Object.keys(region.functions ?? {}).length,
        },
      }),
    };
  }
  const concurrency = /^\/2019-09-30\/functions\/([^/]+)\/concurrency$/.exec(url);
  if (request.method === 'GET' && concurrency) {
    const name = decodeURIComponent(concurrency[1]!);
    const reserved = region.functions?.[name];
    return {
      operation: 'GetFunctionConcurrency',
      answer:
        reserved === undefined
          ? restError(404, 'ResourceNotFoundException', `Function not found: ${name}`)
          : json(200, reserved > 0 ? { ReservedConcurrentExecutions: reserved } : {}),
    };
  }
  const fn = /^\/2015-03-31\/functions\/([^/?]+)$/.exec(url);
  if (request.method === 'GET' && fn) {
    const name = decodeURIComponent(fn[1]!);
    const reserved = region.functions?.[name];
    return {
      operation: 'GetFunction',
      answer:
        reserved === undefined
          ? restError(404, 'ResourceNotFoundException', `Function not found: ${name}`)
          : json(200, {
              Configuration: {
                FunctionName: name,
                FunctionArn: `arn:aws:lambda:${regionName}:${ACCOUNT_ID}:function:${name}`,
                Runtime: 'nodejs24.x',
                State: 'Active',
              },
              Code: { RepositoryType: 'S3', Location: 'https://example.invalid/code.zip' },
              ...(reserved > 0 ? { Concurrency: { ReservedConcurrentExecutions: reserved } } : {}),
            }),
    };
  }
  return { operation: `${request.method} ${url}`, answer: json(404, { message: 'unknown' }) };
};

const apiGateway: Handler = (request, _body, region, regionName) => {
  const domain = /^\/domainnames\/([^/?]+)$/.exec(request.url ?? '');
  if (request.method === 'GET' && domain) {
    const name = decodeURIComponent(domain[1]!);
    return {
      operation: 'GetDomainName',
      answer: region.domainNames?.includes(name)
        ? json(200, {
            domainName: name,
            regionalDomainName: `d-0123456789.execute-api.${regionName}.amazonaws.com`,
            regionalHostedZoneId: 'Z2OJLYMUO9EFXC',
            endpointConfiguration: { types: ['REGIONAL'] },
            domainNameStatus: 'AVAILABLE',
            securityPolicy: 'TLS_1_2',
          })
        : restError(404, 'NotFoundException', 'Invalid domain name identifier specified'),
    };
  }
  if (request.method === 'GET' && request.url === '/account') {
    return {
      operation: 'GetAccount',
      answer: json(200, {
        ...(region.cloudWatchRoleArn ? { cloudwatchRoleArn: region.cloudWatchRoleArn } : {}),
        throttleSettings: { burstLimit: 5000, rateLimit: 10000 },
        features: ['UsagePlans'],
        apiKeyVersion: '4',
      }),
    };
  }
  return {
    operation: `${request.method} ${request.url}`,
    answer: json(404, { message: 'unknown' }),
  };
};

/** The operation of a JSON-protocol request: `Prefix.Operation` in X-Amz-Target. */
const target = (request: IncomingMessage) =>
  String(request.headers['x-amz-target'] ?? '').split('.')[1] ?? '';

const JSON_11 = 'application/x-amz-json-1.1';

const secretsManager: Handler = (request, body, region, regionName) => {
  const operation = target(request);
  const input = JSON.parse(body || '{}') as { SecretId?: string };
  if (operation !== 'DescribeSecret') {
    return { operation, answer: json(400, { __type: 'InvalidAction' }, JSON_11) };
  }
  const secret = region.secrets?.[input.SecretId ?? ''];
  if (!secret) {
    return {
      operation,
      answer: json(
        400,
        {
          __type: 'ResourceNotFoundException',
          message: "Secrets Manager can't find the specified secret.",
        },
        JSON_11,
      ),
    };
  }
  const arn = input.SecretId!;
  return {
    operation,
    answer: json(
      200,
      {
        ARN: arn,
        Name: arn.split(':secret:')[1]?.replace(/-[A-Za-z0-9]{6}$/, ''),
        ...(secret.kmsKeyId ? { KmsKeyId: secret.kmsKeyId } : {}),
        ...(secret.deleted ? { DeletedDate: Date.now() / 1000 } : {}),
        PrimaryRegion: regionName,
      },
      JSON_11,
    ),
  };
};

const kms: Handler = (request, body, region) => {
  const operation = target(request);
  const input = JSON.parse(body || '{}') as { KeyId?: string };
  const keyId = input.KeyId ?? '';
  const found = Object.entries(region.keys ?? {}).find(
    ([arn, { alias }]) => arn === keyId || arn.endsWith(`:key/${keyId}`) || alias === keyId,
  );
  if (operation !== 'DescribeKey') {
    return { operation, answer: json(400, { __type: 'InvalidAction' }, JSON_11) };
  }
  if (!found) {
    return {
      operation,
      answer: json(
        400,
        { __type: 'NotFoundException', message: `Key '${keyId}' does not exist` },
        JSON_11,
      ),
    };
  }
  const [arn, { state, manager = 'CUSTOMER' }] = found;
  return {
    operation,
    answer: json(
      200,
      {
        KeyMetadata: {
          AWSAccountId: ACCOUNT_ID,
          KeyId: arn.split(':key/')[1],
          Arn: arn,
          CreationDate: 1767225600,
          Enabled: state === 'Enabled',
          KeyState: state,
          KeyUsage: 'ENCRYPT_DECRYPT',
          KeyManager: manager,
          KeySpec: 'SYMMETRIC_DEFAULT',
        },
      },
      JSON_11,
    ),
  };
};

const cloudWatch: Handler = (request, body, region, regionName) => {
  const operation = target(request);
  const input = JSON.parse(body || '{}') as {
    AlarmNamePrefix?: string;
    AlarmNames?: string[];
    DashboardNamePrefix?: string;
  };
  if (operation === 'ListDashboards') {
    const prefix = input.DashboardNamePrefix ?? '';
    return {
      operation,
      answer: json(
        200,
        {
          DashboardEntries: (region.dashboards ?? [])
            .filter((name) => name.startsWith(prefix))
            .map((name) => ({
              DashboardName: name,
              DashboardArn: `arn:aws:cloudwatch::${ACCOUNT_ID}:dashboard/${name}`,
            })),
        },
        'application/x-amz-json-1.0',
      ),
    };
  }
  if (operation !== 'DescribeAlarms') {
    return {
      operation,
      answer: json(400, { __type: 'InvalidAction' }, 'application/x-amz-json-1.0'),
    };
  }
  const alarms = Object.entries(region.alarms ?? {}).filter(
    ([name]) =>
      name.startsWith(input.AlarmNamePrefix ?? '') &&
      (input.AlarmNames === undefined || input.AlarmNames.includes(name)),
  );
  return {
    operation,
    answer: json(
      200,
      {
        MetricAlarms: alarms.map(([name, { state, reason }]) => ({
          AlarmName: name,
          AlarmArn: `arn:aws:cloudwatch:${regionName}:${ACCOUNT_ID}:alarm:${name}`,
          StateValue: state,
          StateReason: reason ?? `state ${state}`,
          StateUpdatedTimestamp: Date.now() / 1000,
        })),
        CompositeAlarms: [],
      },
      'application/x-amz-json-1.0',
    ),
  };
};

/** A JSON 1.1 answer, or its error (`__type`). */
const json11 = (body: unknown) => json(200, body, JSON_11);
const json11Error = (type: string, message: string) =>
  json(400, { __type: type, message }, JSON_11);

const acm: Handler = (request, body, region) => {
  const operation = target(request);
  if (operation !== 'DescribeCertificate') {
    return { operation, answer: json11Error('InvalidAction', operation) };
  }
  const { CertificateArn: arn = '' } = JSON.parse(body || '{}') as { CertificateArn?: string };
  const certificate = region.certificates?.[arn];
  if (!certificate) {
    return {
      operation,
      answer: json11Error('ResourceNotFoundException', `Could not find certificate ${arn}.`),
    };
  }
  const { domain, alternatives = [], status = 'ISSUED', notAfter } = certificate;
  return {
    operation,
    answer: json11({
      Certificate: {
        CertificateArn: arn,
        DomainName: domain,
        SubjectAlternativeNames: [domain, ...alternatives],
        Status: status,
        Type: 'AMAZON_ISSUED',
        ...(notAfter === undefined
          ? {}
          : {
              NotBefore: notAfter.getTime() / 1000 - 365 * 86_400,
              NotAfter: notAfter.getTime() / 1000,
            }),
        KeyAlgorithm: 'RSA_2048',
        InUseBy: [],
      },
    }),
  };
};

const LOG_GROUPS_PAGE = 5;

const logs: Handler = (request, body, region, regionName) => {
  const operation = target(request);
  if (operation !== 'DescribeLogGroups') {
    return { operation, answer: json11Error('InvalidAction', operation) };
  }
  const input = JSON.parse(body || '{}') as { logGroupNamePrefix?: string; nextToken?: string };
  const matching = (region.logGroups ?? [])
    .filter((name) => name.startsWith(input.logGroupNamePrefix ?? ''))
    .sort();
  const { items, next } = page(matching, input.nextToken, LOG_GROUPS_PAGE);
  return {
    operation,
    answer: json11({
      logGroups: items.map((name) => ({
        logGroupName: name,
        creationTime: 1767225600000,
        arn: `arn:aws:logs:${regionName}:${ACCOUNT_ID}:log-group:${name}:*`,
        storedBytes: 0,
      })),
      ...(next === undefined ? {} : { nextToken: next }),
    }),
  };
};

const WEB_ACLS_PAGE = 2;

const wafv2: Handler = (request, body, region, regionName) => {
  const operation = target(request);
  const input = JSON.parse(body || '{}') as { Scope?: string; NextMarker?: string };
  if (operation !== 'ListWebACLs') {
    return { operation, answer: json11Error('WAFInvalidOperationException', operation) };
  }
  if (input.Scope !== 'REGIONAL') {
    return {
      operation,
      answer: json11Error('WAFInvalidParameterException', `Scope ${String(input.Scope)}`),
    };
  }
  const webAcls = Object.entries(region.webAcls ?? {});
  const { items, next } = page(webAcls, input.NextMarker, WEB_ACLS_PAGE);
  // As WAF does, every page has a NextMarker: the last one's leads to an empty page.
  const marker = next ?? String(webAcls.length);
  return {
    operation,
    answer: json11({
      WebACLs: items.map(([name, id]) => ({
        Name: name,
        Id: id,
        ARN: `arn:aws:wafv2:${regionName}:${ACCOUNT_ID}:regional/webacl/${name}/${id}`,
        LockToken: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
      })),
      NextMarker: marker,
    }),
  };
};

const codeDeploy: Handler = (request, body, region) => {
  const operation = target(request);
  if (operation !== 'GetApplication') {
    return { operation, answer: json11Error('InvalidOperationException', operation) };
  }
  const { applicationName: name = '' } = JSON.parse(body || '{}') as { applicationName?: string };
  return {
    operation,
    answer: region.applications?.includes(name)
      ? json11({
          application: {
            applicationId: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
            applicationName: name,
            createTime: 1767225600,
            linkedToGitHub: false,
            computePlatform: 'Lambda',
          },
        })
      : json11Error('ApplicationDoesNotExistException', `No application found for name: ${name}`),
  };
};

/** A query-protocol error (IAM, CloudFormation). */
const queryError = (status: number, ns: string, code: string, message: string) =>
  xml(
    status,
    `<ErrorResponse xmlns="${ns}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>00000000-0000-0000-0000-000000000000</RequestId></ErrorResponse>`,
  );

/** A query-protocol answer: `<{Action}Response><{Action}Result>…`. */
const queryAnswer = (ns: string, action: string, result: string) =>
  xml(
    200,
    `<${action}Response xmlns="${ns}"><${action}Result>${result}</${action}Result><ResponseMetadata><RequestId>00000000-0000-0000-0000-000000000000</RequestId></ResponseMetadata></${action}Response>`,
  );

const IAM_NS = 'https://iam.amazonaws.com/doc/2010-05-08/';

const iam: Handler = (_request, body, region) => {
  const form = new URLSearchParams(body);
  const operation = form.get('Action') ?? '';
  if (operation !== 'GetRole') {
    return { operation, answer: queryError(400, IAM_NS, 'InvalidAction', operation) };
  }
  const name = form.get('RoleName') ?? '';
  if (!region.roles?.includes(name)) {
    return {
      operation,
      answer: queryError(
        404,
        IAM_NS,
        'NoSuchEntity',
        `The role with name ${name} cannot be found.`,
      ),
    };
  }
  return {
    operation,
    answer: queryAnswer(
      IAM_NS,
      'GetRole',
      `<Role><Path>/</Path><RoleName>${escapeXml(name)}</RoleName><RoleId>AROA0123456789EXAMPLE</RoleId><Arn>arn:aws:iam::${ACCOUNT_ID}:role/${escapeXml(name)}</Arn><CreateDate>2026-01-01T00:00:00Z</CreateDate><AssumeRolePolicyDocument>%7B%7D</AssumeRolePolicyDocument></Role>`,
    ),
  };
};

const CLOUDFORMATION_NS = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';
const STACK_RESOURCES_PAGE = 5;

const cloudFormation: Handler = (_request, body, region, regionName) => {
  const form = new URLSearchParams(body);
  const operation = form.get('Action') ?? '';
  const stacks = Object.entries(region.stacks ?? {});
  const stackId = (name: string) =>
    `arn:aws:cloudformation:${regionName}:${ACCOUNT_ID}:stack/${name}/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0`;
  const member = (id: string, index: number) =>
    `<LogicalResourceId>Resource${String(index)}</LogicalResourceId><PhysicalResourceId>${escapeXml(id)}</PhysicalResourceId><ResourceType>AWS::CloudFormation::WaitConditionHandle</ResourceType><ResourceStatus>CREATE_COMPLETE</ResourceStatus>`;
  if (operation === 'ListStackResources') {
    const name = form.get('StackName') ?? '';
    const ids = region.stacks?.[name];
    if (!ids) {
      return {
        operation,
        answer: queryError(
          400,
          CLOUDFORMATION_NS,
          'ValidationError',
          `Stack with id ${name} does not exist`,
        ),
      };
    }
    const { items, next } = page(ids, form.get('NextToken') ?? undefined, STACK_RESOURCES_PAGE);
    return {
      operation,
      answer: queryAnswer(
        CLOUDFORMATION_NS,
        operation,
        `<StackResourceSummaries>${items
          .map(
            (id, index) =>
              `<member>${member(id, index)}<LastUpdatedTimestamp>2026-01-01T00:00:00Z</LastUpdatedTimestamp></member>`,
          )
          .join(
            '',
          )}</StackResourceSummaries>${next === undefined ? '' : `<NextToken>${next}</NextToken>`}`,
      ),
    };
  }
  if (operation === 'DescribeStackResources') {
    const physicalId = form.get('PhysicalResourceId') ?? '';
    const owner = stacks.find(([, ids]) => ids.includes(physicalId));
    if (!owner) {
      return {
        operation,
        answer: queryError(
          400,
          CLOUDFORMATION_NS,
          'ValidationError',
          `Stack for ${physicalId} does not exist`,
        ),
      };
    }
    const [name, ids] = owner;
    return {
      operation,
      answer: queryAnswer(
        CLOUDFORMATION_NS,
        operation,
        `<StackResources>${ids
          .map(
            (id, index) =>
              `<member><StackName>${escapeXml(name)}</StackName><StackId>${stackId(name)}</StackId>${member(id, index)}<Timestamp>2026-01-01T00:00:00Z</Timestamp></member>`,
          )
          .join('')}</StackResources>`,
      ),
    };
  }
  return { operation, answer: queryError(400, CLOUDFORMATION_NS, 'InvalidAction', operation) };
};

const ec2Error = (code: string, message: string) =>
  xml(
    400,
    `<Response><Errors><Error><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error></Errors><RequestID>00000000-0000-0000-0000-000000000000</RequestID></Response>`,
  );

/** `Name.1`, `Name.2`, … of an EC2 query form. */
const listed = (form: URLSearchParams, name: string) =>
  [...form.entries()].filter(([key]) => key.startsWith(`${name}.`)).map(([, value]) => value);

/** Regions the account must enable before use (AWS's opt-in regions). */
const OPT_IN_REGIONS = [
  'af-south-1',
  'ap-east-1',
  'ap-south-2',
  'ap-southeast-3',
  'ap-southeast-4',
  'ca-west-1',
  'eu-central-2',
  'eu-south-1',
  'eu-south-2',
  'il-central-1',
  'me-central-1',
  'me-south-1',
];

const ec2: Handler = (_request, body, region, _regionName, account) => {
  const form = new URLSearchParams(body);
  const operation = form.get('Action') ?? '';
  const ns = 'xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"';
  if (operation === 'DescribeRegions') {
    const names = listed(form, 'RegionName');
    const optIn = (name: string) =>
      !OPT_IN_REGIONS.includes(name)
        ? 'opt-in-not-required'
        : account[name]?.disabled
          ? 'not-opted-in'
          : 'opted-in';
    // Without AllRegions, the regions not enabled are left out.
    const all = form.get('AllRegions') === 'true';
    const items = names
      .filter((name) => all || optIn(name) !== 'not-opted-in')
      .map(
        (name) =>
          `<item><regionName>${name}</regionName><regionEndpoint>ec2.${name}.amazonaws.com</regionEndpoint><optInStatus>${optIn(name)}</optInStatus></item>`,
      )
      .join('');
    return {
      operation,
      answer: xml(
        200,
        `<DescribeRegionsResponse ${ns}><requestId>1</requestId><regionInfo>${items}</regionInfo></DescribeRegionsResponse>`,
      ),
    };
  }
  if (operation === 'DescribeSubnets') {
    const ids = listed(form, 'SubnetId');
    const missing = ids.filter((id) => !region.subnets?.[id]);
    if (missing.length > 0) {
      return {
        operation,
        answer: ec2Error(
          'InvalidSubnetID.NotFound',
          `The subnet ID '${missing.join(', ')}' does not exist`,
        ),
      };
    }
    const items = ids
      .map((id) => {
        const { zone, vpc } = region.subnets![id]!;
        return `<item><subnetId>${id}</subnetId><availabilityZone>${zone}</availabilityZone><vpcId>${vpc}</vpcId><state>available</state></item>`;
      })
      .join('');
    return {
      operation,
      answer: xml(
        200,
        `<DescribeSubnetsResponse ${ns}><requestId>1</requestId><subnetSet>${items}</subnetSet></DescribeSubnetsResponse>`,
      ),
    };
  }
  if (operation === 'DescribeSecurityGroups') {
    const ids = listed(form, 'GroupId');
    const missing = ids.filter((id) => !region.securityGroups?.[id]);
    if (missing.length > 0) {
      return {
        operation,
        answer: ec2Error(
          'InvalidGroup.NotFound',
          `The security group '${missing.join(', ')}' does not exist`,
        ),
      };
    }
    const items = ids
      .map(
        (id) =>
          `<item><groupId>${id}</groupId><groupName>${id}-name</groupName><vpcId>${region.securityGroups![id]!.vpc}</vpcId></item>`,
      )
      .join('');
    return {
      operation,
      answer: xml(
        200,
        `<DescribeSecurityGroupsResponse ${ns}><requestId>1</requestId><securityGroupInfo>${items}</securityGroupInfo></DescribeSecurityGroupsResponse>`,
      ),
    };
  }
  return { operation, answer: ec2Error('InvalidAction', `The action ${operation} is not valid`) };
};

/** Endpoint variable, signing name and handler of each service. */
const SERVICES = [
  ['AWS_ENDPOINT_URL_LAMBDA', 'lambda', lambda],
  ['AWS_ENDPOINT_URL_API_GATEWAY', 'apigateway', apiGateway],
  ['AWS_ENDPOINT_URL_SECRETS_MANAGER', 'secretsmanager', secretsManager],
  ['AWS_ENDPOINT_URL_KMS', 'kms', kms],
  ['AWS_ENDPOINT_URL_EC2', 'ec2', ec2],
  ['AWS_ENDPOINT_URL_CLOUDWATCH', 'monitoring', cloudWatch],
  ['AWS_ENDPOINT_URL_ACM', 'acm', acm],
  ['AWS_ENDPOINT_URL_CLOUDWATCH_LOGS', 'logs', logs],
  ['AWS_ENDPOINT_URL_IAM', 'iam', iam],
  ['AWS_ENDPOINT_URL_WAFV2', 'wafv2', wafv2],
  ['AWS_ENDPOINT_URL_CODEDEPLOY', 'codedeploy', codeDeploy],
  ['AWS_ENDPOINT_URL_CLOUDFORMATION', 'cloudformation', cloudFormation],
] as const;

export interface AwsServers {
  /** The endpoint variables and dummy credentials for a process using the SDK. */
  readonly env: Record<string, string>;
  /** Every call answered, in order. */
  readonly calls: AwsCall[];
  /** The account, changeable between runs. */
  account: Account;
  readonly close: () => Promise<void>;
}

/** Starts one server per service on 127.0.0.1, answering from `account`. */
export const startAwsServers = async (account: Account): Promise<AwsServers> => {
  const servers: Server[] = [];
  const env: Record<string, string> = {
    AWS_ACCESS_KEY_ID: 'AKIDRELEASETEST',
    AWS_SECRET_ACCESS_KEY: 'release-test-secret-key',
    AWS_SESSION_TOKEN: '',
    AWS_PROFILE: '',
    AWS_REGION: '',
    AWS_DEFAULT_REGION: '',
    AWS_ENDPOINT_URL: '',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const state: AwsServers = {
    env,
    calls: [],
    account,
    close: () =>
      Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => {
                resolve();
              });
            }),
        ),
      ).then(() => undefined),
  };
  for (const [variable, signingName, handler] of SERVICES) {
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      void readBody(request).then((body) => {
        const scope = scopeOf(request);
        let answer: Answer;
        if (scope?.service !== signingName) {
          answer = json(403, {
            __type: 'InvalidSignatureException',
            message: `signed for ${scope?.service ?? 'nothing'}, not ${signingName}`,
          });
          state.calls.push({ service: signingName, region: scope?.region ?? '', operation: '?' });
        } else if (state.account[scope.region]?.disabled) {
          // What a region the account has not enabled answers.
          answer = json(
            403,
            {
              __type: 'UnrecognizedClientException',
              message: 'The security token included in the request is invalid.',
            },
            'application/json',
            { 'x-amzn-errortype': 'UnrecognizedClientException' },
          );
          state.calls.push({ service: signingName, region: scope.region, operation: 'refused' });
        } else {
          const result = handler(
            request,
            body,
            state.account[scope.region] ?? {},
            scope.region,
            state.account,
          );
          state.calls.push({
            service: signingName,
            region: scope.region,
            operation: result.operation,
          });
          answer = result.answer;
        }
        response.writeHead(answer.status, { ...answer.headers, 'x-amzn-requestid': '1' });
        response.end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    env[variable] = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  }
  return state;
};
