/**
 * Local stand-ins for the AWS services the release code reads, each speaking its service's own
 * protocol, for the real SDK clients pointed at them through AWS_ENDPOINT_URL_<SERVICE>:
 *
 * - Lambda and API Gateway: REST-JSON (GET /2016-08-19/account-settings,
 *   GET /2019-09-30/functions/{name}/concurrency, GET /account); errors by x-amzn-errortype.
 * - Secrets Manager and KMS: JSON 1.1, CloudWatch: JSON 1.0 (POST / with X-Amz-Target).
 * - EC2: the EC2 query protocol (a POSTed form, XML answers and XML errors).
 *
 * Each answers from the account state of the region the request was signed for (SigV4's
 * credential scope), refuses a request signed for another service, and records every call.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

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
}

export type Account = Record<string, RegionAccount>;

export interface AwsCall {
  readonly service: string;
  readonly region: string;
  readonly operation: string;
}

/** The credential scope of a SigV4 Authorization header: region and service. */
const scopeOf = (request: IncomingMessage) => {
  const match = /Credential=[^/]+\/\d{8}\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request/.exec(
    request.headers.authorization ?? '',
  );
  return match ? { region: match[1]!, service: match[2]! } : undefined;
};

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      resolve(body);
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
) => { operation: string; answer: Answer };

const lambda: Handler = (request, _body, region) => {
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
          ? json(
              404,
              { Type: 'User', Message: `Function not found: ${name}` },
              'application/json',
              { 'x-amzn-errortype': 'ResourceNotFoundException' },
            )
          : json(200, reserved > 0 ? { ReservedConcurrentExecutions: reserved } : {}),
    };
  }
  return { operation: `${request.method} ${url}`, answer: json(404, { message: 'unknown' }) };
};

const apiGateway: Handler = (request, _body, region) => {
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

const cloudWatch: Handler = (request, body, region) => {
  const operation = target(request);
  const input = JSON.parse(body || '{}') as { AlarmNamePrefix?: string };
  if (operation !== 'DescribeAlarms') {
    return {
      operation,
      answer: json(400, { __type: 'InvalidAction' }, 'application/x-amz-json-1.0'),
    };
  }
  const alarms = Object.entries(region.alarms ?? {}).filter(([name]) =>
    name.startsWith(input.AlarmNamePrefix ?? ''),
  );
  return {
    operation,
    answer: json(
      200,
      {
        MetricAlarms: alarms.map(([name, { state, reason }]) => ({
          AlarmName: name,
          AlarmArn: `arn:aws:cloudwatch:eu-west-1:${ACCOUNT_ID}:alarm:${name}`,
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

const ec2Error = (code: string, message: string) =>
  xml(
    400,
    `<Response><Errors><Error><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error></Errors><RequestID>00000000-0000-0000-0000-000000000000</RequestID></Response>`,
  );

/** `Name.1`, `Name.2`, … of an EC2 query form. */
const listed = (form: URLSearchParams, name: string) =>
  [...form.entries()].filter(([key]) => key.startsWith(`${name}.`)).map(([, value]) => value);

const ec2: Handler = (_request, body, region) => {
  const form = new URLSearchParams(body);
  const operation = form.get('Action') ?? '';
  const ns = 'xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"';
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
        } else {
          const result = handler(request, body, state.account[scope.region] ?? {}, scope.region);
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
