/**
 * The preflight's checks of what would make a release fail midway, after earlier regions were
 * deployed (tools/release/preflight.ts): a region the account has not enabled, the custom
 * domain's certificate, the custom domain name taken, and fixed names (functions, log groups,
 * the role, alarms, the web ACL, the CodeDeploy application) held outside the stage's stack.
 *
 * As in preflight.test.ts, the real SDK clients reach the local servers of
 * tests/support/aws-servers.ts, which answer in small pages so that every list is paged.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { serverlessFunctions } from '../../../tools/generators/serverless';
import { stageOperations, stageResourceNames } from '../../../tools/release/preflight-names';
import { startAwsServers, type AwsServers } from '../../support/aws-servers';
import {
  onlyReads,
  plantStack,
  preflightDeploy,
  problemLines,
  STACK,
} from '../../support/preflight';
import {
  ENV,
  healthyAccount,
  packageCall,
  productionName,
  REGIONS,
  removeTemporary,
} from '../../support/release';

const DOMAIN = 'api.brand.example';
const certificateIn = (region: string) =>
  `arn:aws:acm:${region}:123456789012:certificate/0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f${REGIONS.indexOf(region)}`;
/** The custom domain in every region, each with its region's certificate. */
const DOMAIN_ENV: Record<string, string> = {
  DOMAIN_NAME_PRODUCTION: DOMAIN,
  ...Object.fromEntries(
    REGIONS.map((region) => [
      productionName('DOMAIN_CERTIFICATE_ARN', region),
      certificateIn(region),
    ]),
  ),
};
const IN_A_YEAR = new Date(Date.now() + 365 * 86_400_000);
const FUNCTIONS = Object.keys(serverlessFunctions());
const name = (suffix: string) => `${STACK}-${suffix}`;

/** Every fixed name of production in `region`, as the preflight derives them. */
const stageNames = (region: string, env: Record<string, string> = {}) =>
  stageResourceNames(
    { service: 'portal-service-api', stage: 'production', region, functions: FUNCTIONS },
    stageOperations({ ...ENV, ...env }, { stage: 'production', region, portal: true }).settings,
  );

let aws: AwsServers;
beforeAll(async () => {
  aws = await startAwsServers(healthyAccount());
});
afterEach(() => {
  aws.account = healthyAccount();
  aws.calls.length = 0;
});
afterAll(async () => {
  await aws.close();
  removeTemporary();
});

const deploy = preflightDeploy(() => aws);
const callsOf = (operation: string) => aws.calls.filter((call) => call.operation === operation);

describe('npm run deploy -- --stage production: what would fail mid-release', () => {
  it('skips an opt-in region the account has not enabled, in one line, asking it nothing', async () => {
    // Arrange
    aws.account['me-central-1']!.disabled = true;

    // Act
    const { result, calls } = await deploy({}, ['--preflight-only']);

    // Assess: asked once, of us-east-1; nothing signed for me-central-1
    expect(result.code).toBe(1);
    expect(calls).toEqual([]);
    expect(problemLines(result.stderr)).toEqual([
      'me-central-1 an opt-in region not enabled for this account: enable it (AWS console, Account, "AWS Regions"; or aws account enable-region --region-name me-central-1) and wait until it is enabled; its other checks skipped',
    ]);
    expect(callsOf('DescribeRegions')).toEqual([
      { service: 'ec2', region: 'us-east-1', operation: 'DescribeRegions' },
    ]);
    expect(aws.calls.filter((call) => call.region === 'me-central-1')).toEqual([]);
  }, 60_000);

  it("checks the custom domain's certificate: issued, covering the name, unexpired, in the region", async () => {
    // Arrange: eu-west-1's a wildcard that covers it; one problem in each other region
    const account = healthyAccount();
    account['eu-west-1']!.certificates = {
      [certificateIn('eu-west-1')]: { domain: '*.brand.example', notAfter: IN_A_YEAR },
    };
    account['eu-central-1']!.certificates = {
      [certificateIn('eu-central-1')]: { domain: DOMAIN, status: 'PENDING_VALIDATION' },
    };
    account['me-central-1']!.certificates = {
      [certificateIn('me-central-1')]: {
        domain: 'api.other.example',
        alternatives: ['*.example', 'brand.example'],
        notAfter: IN_A_YEAR,
      },
    };
    account['ap-southeast-1']!.certificates = {
      [certificateIn('ap-southeast-1')]: { domain: DOMAIN, notAfter: new Date('2025-01-31') },
    };
    aws.account = account;

    // Act
    const { result } = await deploy(DOMAIN_ENV, ['--preflight-only']);

    // Assess
    expect(problemLines(result.stderr)).toEqual([
      'eu-central-1 DOMAIN_CERTIFICATE_ARN_PRODUCTION_EU_CENTRAL_1: the certificate is PENDING_VALIDATION, not ISSUED: create its validation DNS record and wait until ACM issues it',
      'me-central-1 DOMAIN_CERTIFICATE_ARN_PRODUCTION_ME_CENTRAL_1: the certificate is for api.other.example, *.example, brand.example, not api.brand.example (DOMAIN_NAME_PRODUCTION): give a certificate covering api.brand.example',
      'ap-southeast-1 DOMAIN_CERTIFICATE_ARN_PRODUCTION_AP_SOUTHEAST_1: the certificate expired on 2025-01-31: renew it, or request a new one for api.brand.example and give its ARN',
      `sa-east-1 DOMAIN_CERTIFICATE_ARN_PRODUCTION_SA_EAST_1: no such certificate in sa-east-1 (${certificateIn('sa-east-1')}): request or import one for api.brand.example in sa-east-1`,
    ]);
    expect(
      callsOf('DescribeCertificate').map(({ service, region }) => `${service} ${region}`),
    ).toEqual(expect.arrayContaining(REGIONS.map((region) => `acm ${region}`)));

    // Act: a certificate of another region
    const elsewhere = await deploy(
      {
        ...DOMAIN_ENV,
        [productionName('DOMAIN_CERTIFICATE_ARN', 'eu-west-1')]: certificateIn('sa-east-1'),
      },
      ['--region', 'eu-west-1', '--preflight-only'],
    );

    // Assess: refused as packaging refuses it, before ACM is asked
    expect(problemLines(elsewhere.result.stderr)).toEqual([
      "eu-west-1 DOMAIN_CERTIFICATE_ARN_PRODUCTION_EU_WEST_1 names a certificate in sa-east-1: a regional domain of eu-west-1 needs a certificate of eu-west-1 (the custom domain's certificate and the fixed names not checked)",
    ]);
  }, 60_000);

  it('refuses a custom domain name that exists outside the stack, and accepts the stack’s own', async () => {
    // Arrange: every region's certificate valid; the name taken in two regions, the stack's in one
    const account = healthyAccount();
    for (const region of REGIONS) {
      account[region]!.certificates = {
        [certificateIn(region)]: { domain: DOMAIN, notAfter: IN_A_YEAR },
      };
    }
    account['eu-west-1']!.domainNames = [DOMAIN];
    plantStack(
      account,
      'eu-central-1',
      [{ type: 'AWS::ApiGateway::DomainName', name: DOMAIN }],
      'portal-service-api-staging',
    );
    plantStack(account, 'me-central-1', [{ type: 'AWS::ApiGateway::DomainName', name: DOMAIN }]);
    aws.account = account;

    // Act
    const { result } = await deploy(DOMAIN_ENV, ['--preflight-only']);

    // Assess
    expect(problemLines(result.stderr)).toEqual([
      `eu-west-1 custom domain ${DOMAIN} already exists outside CloudFormation, and deploying stack ${STACK} would fail creating it ("already exists"): delete it, or import it into ${STACK} (a change set of type IMPORT), or give DOMAIN_NAME_PRODUCTION another name`,
      `eu-central-1 custom domain ${DOMAIN} already exists in stack portal-service-api-staging, and deploying stack ${STACK} would fail creating it ("already exists"): delete it with portal-service-api-staging, or remove it from portal-service-api-staging keeping it (DeletionPolicy: Retain) and import it into ${STACK}, or give DOMAIN_NAME_PRODUCTION another name`,
    ]);
    expect(
      callsOf('GetDomainName')
        .map(({ region }) => region)
        .sort(),
    ).toEqual([...REGIONS].sort());
  }, 60_000);

  it('reports each fixed name held outside the stack, naming its owner and what to do', async () => {
    // Arrange: one or two in each region, each among others of the same kind (paged lists)
    const account = healthyAccount();
    // eu-west-1: a function's log group Lambda created again after the stack went
    account['eu-west-1']!.logGroups = [
      ...['a', 'b', 'c', 'd', 'e', 'f'].map((n) => `/aws/lambda/${name(`removed-${n}`)}`),
      `/aws/lambda/${name('dashboard')}`,
    ];
    // eu-central-1: the stack deployed, and the access log kept from a stack deleted before
    plantStack(
      account,
      'eu-central-1',
      stageNames('eu-central-1').filter(({ name: n }) => !n.startsWith('/aws/api-gateway/')),
    );
    account['eu-central-1']!.logGroups!.push(`/aws/api-gateway/${STACK}`);
    // me-central-1: the functions' role, made by hand
    const iam = (account['us-east-1'] ??= {});
    iam.roles = [...(iam.roles ?? []), `${STACK}-me-central-1-lambdaRole`];
    // ap-southeast-1: an alarm and the web ACL in another stack, among other web ACLs
    account['ap-southeast-1']!.webAcls = { 'acl-a': 'id-a', 'acl-b': 'id-b', 'acl-c': 'id-c' };
    plantStack(
      account,
      'ap-southeast-1',
      [
        { type: 'AWS::CloudWatch::Alarm', name: name('api-5xx-rate') },
        { type: 'AWS::WAFv2::WebACL', name: STACK },
      ],
      'portal-monitoring',
    );
    // sa-east-1: a function in another stack, and the CodeDeploy application by hand
    plantStack(
      account,
      'sa-east-1',
      [{ type: 'AWS::Lambda::Function', name: name('revenue') }],
      'reports-legacy',
    );
    account['sa-east-1']!.applications = [STACK];
    aws.account = account;

    // Act
    const { result, calls } = await deploy({}, [], { npm: true });

    // Assess
    expect(result.code).toBe(1);
    expect(calls).toEqual([]);
    const outside = (what: string) =>
      `${what} already exists outside CloudFormation, and deploying stack ${STACK} would fail creating it ("already exists"): delete it, or import it into ${STACK} (a change set of type IMPORT)`;
    const inStack = (what: string, owner: string) =>
      `${what} already exists in stack ${owner}, and deploying stack ${STACK} would fail creating it ("already exists"): delete it with ${owner}, or remove it from ${owner} keeping it (DeletionPolicy: Retain) and import it into ${STACK}`;
    expect(problemLines(result.stderr)).toEqual([
      `eu-west-1 ${outside(`log group /aws/lambda/${name('dashboard')}`)}`,
      `eu-central-1 ${outside(`log group /aws/api-gateway/${STACK}`)}`,
      `me-central-1 ${outside(`IAM role ${STACK}-me-central-1-lambdaRole`)}`,
      `ap-southeast-1 ${inStack(`alarm ${name('api-5xx-rate')}`, 'portal-monitoring')}`,
      `ap-southeast-1 ${inStack(`web ACL ${STACK}`, 'portal-monitoring')}`,
      `sa-east-1 ${inStack(`Lambda function ${name('revenue')}`, 'reports-legacy')}`,
      `sa-east-1 ${outside(`CodeDeploy application ${STACK}`)}`,
    ]);
    // CloudFormation asked, per region, for the stack's own, then about each found elsewhere
    expect(callsOf('DescribeStackResources')).toHaveLength(7);
    // Every list read to its end: a prefix per log group folder, in pages; WAF's last page empty
    const pagesIn = (operation: string, region: string) =>
      callsOf(operation).filter((call) => call.region === region).length;
    expect(pagesIn('DescribeLogGroups', 'eu-west-1')).toBe(3);
    expect(pagesIn('ListStackResources', 'eu-central-1')).toBeGreaterThan(1);
    expect(pagesIn('ListWebACLs', 'ap-southeast-1')).toBe(3);
    expect(onlyReads(aws)).toBe(true);
  }, 60_000);

  it('passes a re-deploy: every fixed name exists, all the stack’s own', async () => {
    // Arrange
    const account = healthyAccount();
    for (const region of REGIONS) {
      account[region]!.certificates = {
        [certificateIn(region)]: { domain: DOMAIN, notAfter: IN_A_YEAR },
      };
      plantStack(account, region, stageNames(region, DOMAIN_ENV));
    }
    aws.account = account;

    // Act
    const { result, out, calls } = await deploy(DOMAIN_ENV);

    // Assess: one list of the stack per region (paged), no question about an owner
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(calls.filter((call) => call.startsWith('package'))).toEqual(
      REGIONS.map((region) => packageCall(out, region)),
    );
    const names = stageNames('eu-west-1', DOMAIN_ENV).length;
    expect(result.stdout).toMatch(
      new RegExp(
        `eu-west-1 +.*certificate for api\\.brand\\.example until \\d{4}-\\d\\d-\\d\\d, ${names} fixed names free or the stack's own`,
      ),
    );
    expect(callsOf('DescribeStackResources')).toEqual([]);
    expect(new Set(callsOf('ListStackResources').map(({ region }) => region))).toEqual(
      new Set(REGIONS),
    );
  }, 60_000);

  it('bounds every call: a silent endpoint is one line, within the clients’ timeouts', async () => {
    // Arrange: CloudWatch Logs accepts connections and never answers
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;

    try {
      // Act
      const started = performance.now();
      const { result } = await deploy(
        { AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: `http://127.0.0.1:${String(port)}` },
        ['--region', 'eu-west-1', '--preflight-only'],
      );
      const seconds = (performance.now() - started) / 1000;

      // Assess: two attempts of 5 s, and the process's start
      expect(problemLines(result.stderr)).toEqual([
        expect.stringMatching(
          /^eu-west-1 log groups not checked: TimeoutError: .*5000 ms/,
        ) as unknown,
      ]);
      expect(seconds).toBeLessThan(25);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 60_000);
});
