/**
 * `serverless package` per stage and region, offline: the generated CloudFormation has one API
 * function per endpoint of the catalogue (serverless.yml's functions are generated from it) and
 * routes its method and OPTIONS on each of its paths to it, through its `live` alias (no mock
 * CORS integration), gives each API function the key-set URL and issuer of its portal
 * environment, and the database of its own stage and region (DATABASE_URL_<STAGE>,
 * DATABASE_SECRET_ARN_<STAGE>_<REGION>), and carries the gateway responses. Beside the API's
 * functions there are only the release's pre-traffic hook and, in a stage with alarms, the
 * heartbeat (tools/generators/heartbeat.ts): run every minute by its schedule, with its own role,
 * no VPC, no layer, no route, no `live` alias and none of the key-set or database settings.
 * The database variables themselves are tested in database-secret.test.ts, the operations
 * (alarms, stage, aliases) in operations.test.ts. Every template packaged holds what AWS
 * enforces at deploy time (tools/generators/invariants.ts), and cfn-lint finds no error in it
 * (skipped, and shown as skipped, when cfn-lint is not on PATH).
 *
 * `npm run package` (tools/release/) ships in each API function's zip its own bundle and source
 * map and the database's CAs only, and in the heartbeat's its bundle and map alone (it calls
 * Lambda's API, never the database), whatever an earlier build (`npm start`, a function since
 * removed) left in the esbuild work folders.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { aliasLogicalId } from '../../../tools/generators/operations';
import { missingActions, templateActions } from '../../../tools/release/deployer-policy';
import { PRE_TRAFFIC_LOGICAL_ID } from '../../../tools/generators/pre-traffic';
import {
  HEARTBEAT_LOGICAL_ID,
  HEARTBEAT_ROLE_LOGICAL_ID,
} from '../../../tools/generators/heartbeat';
import { lambdaLogicalId } from '../../../tools/generators/serverless';
import { catalogue } from '../../../tools/catalogue';
import { expectLintPasses, withCfnLint } from '../../support/cfn-lint';
import { expectInvariantsHold } from '../../support/invariants';
import {
  expectPackaged,
  expectRefused,
  ofType,
  packageService,
  readTemplate,
  removeTemporary,
  tempDir,
  TEMPLATE,
  WORK_FOLDER,
  type Packaged,
  type Template,
} from '../../support/packaging';
import { ROOT, run } from '../../support/processes';
import { zipEntries } from '../../support/zip';

const DEPLOYER_POLICY = JSON.parse(
  readFileSync(join(ROOT, 'docs/deployer-policy.json'), 'utf8'),
) as Parameters<typeof missingActions>[0];

/**
 * The secret of each stage and AWS region packaged (its own, or a replica of one, named by its ARN
 * there), and where each stage connects: each under the stage's own name.
 */
const secretIn = (stage: string, region: string) =>
  `arn:aws:secretsmanager:${region}:123456789012:secret:portal/${stage}/database-AbC123`;
const urlOf = (stage: string) => `postgres://db-${stage}.example:5432/reports`;
const SECRET_VARIABLES = {
  DATABASE_SECRET_ARN_PRODUCTION: '',
  DATABASE_SECRET_ARN_STAGING_EU_WEST_1: secretIn('staging', 'eu-west-1'),
  DATABASE_SECRET_ARN_STAGING_EU_CENTRAL_1: secretIn('staging', 'eu-central-1'),
  DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1: secretIn('production', 'eu-west-1'),
  DATABASE_SECRET_ARN_PRODUCTION_EU_CENTRAL_1: secretIn('production', 'eu-central-1'),
  DATABASE_SECRET_ARN_PRODUCTION_ME_CENTRAL_1: secretIn('production', 'me-central-1'),
  DATABASE_SECRET_ARN_PRODUCTION_AP_SOUTHEAST_1: secretIn('production', 'ap-southeast-1'),
  DATABASE_SECRET_ARN_PRODUCTION_SA_EAST_1: secretIn('production', 'sa-east-1'),
};

const KEY_SET_VARIABLES: Record<string, string> = {
  // Only where to connect: the user and password come from the secret.
  DATABASE_URL_STAGING: urlOf('staging'),
  DATABASE_URL_PRODUCTION: urlOf('production'),
  ...SECRET_VARIABLES,
  JWK_URL_EU_STAGING: 'https://keys.example/eu-staging/v2/jwks.json',
  JWK_URL_EU_PRODUCTION: 'https://keys.example/eu-production/v2/jwks.json',
  JWK_URL_APAC_PRODUCTION: 'https://keys.example/apac-production/v2/jwks.json',
  JWK_URL_LATAM_PRODUCTION: 'https://keys.example/latam-production/v2/jwks.json',
  JWT_ISSUER_EU_STAGING: 'https://portal.example/eu-staging',
  JWT_ISSUER_EU_PRODUCTION: 'https://portal.example/eu-production',
  JWT_ISSUER_APAC_PRODUCTION: 'https://portal.example/apac-production',
  JWT_ISSUER_LATAM_PRODUCTION: 'https://portal.example/latam-production',
};

/** Every endpoint of the catalogue: its CloudFormation function, its method and its paths. */
const ENDPOINTS = catalogue.map((endpoint) => ({
  lambda: lambdaLogicalId(endpoint.function),
  method: endpoint.method,
  paths: endpoint.paths,
}));
/** The API's functions: the catalogue's, by logical id. */
const API_FUNCTIONS = ENDPOINTS.map(({ lambda }) => lambda);
/** The functions that serve no route: the release's pre-traffic hook and the heartbeat. */
const NOT_API = [PRE_TRAFFIC_LOGICAL_ID, HEARTBEAT_LOGICAL_ID];
/** What only the API's functions are given: the key set and the database. */
const API_ONLY_VARIABLES = [
  'JWKS_URL',
  'JWT_ISSUER',
  'DATABASE_URL',
  'DATABASE_SECRET_ARN',
  'DB_TLS',
  'DB_CA',
];

afterAll(removeTemporary);

/** Each stage and region packaged once, by whichever of its tests runs first. */
const packaged = new Map<string, Promise<Packaged>>();
const packageOnce = (stage: string, region: string) => {
  const key = `${stage} ${region}`;
  // dev: its own key set and a whole connection string (no secret needed outside the portal).
  const env = {
    ...KEY_SET_VARIABLES,
    JWKS_URL: 'https://keys.example/dev/jwks.json',
    DATABASE_URL_DEV: 'postgres://portal:dev@db-dev.example:5432/reports',
  };
  const pending = packaged.get(key) ?? packageService({ stage, region, env });
  packaged.set(key, pending);
  return pending;
};

/** The full path of an API Gateway resource, rebuilt from its PathPart chain. */
const pathOf = (template: Template, logicalId: string): string => {
  const resource = template.Resources[logicalId];
  if (!resource) return '';
  const parent = resource.Properties.ParentId as { Ref?: string; 'Fn::GetAtt'?: unknown };
  const prefix = parent.Ref ? pathOf(template, parent.Ref) : '';
  return `${prefix}/${String(resource.Properties.PathPart)}`;
};

const routes = (template: Template) =>
  Object.values(template.Resources)
    .filter((resource) => resource.Type === 'AWS::ApiGateway::Method')
    .map(({ Properties: p }) => ({
      method: String(p.HttpMethod),
      path: pathOf(template, (p.ResourceId as { Ref: string }).Ref),
      integration: JSON.stringify(p.Integration),
    }));

/**
 * Every stage and region that packages, with the variable of its key-set URL (its issuer's is
 * the same with JWT_ISSUER for JWK_URL).
 */
const PACKAGED = [
  ['staging', 'eu-west-1', 'JWK_URL_EU_STAGING'],
  ['staging', 'eu-central-1', 'JWK_URL_EU_STAGING'],
  ['production', 'eu-west-1', 'JWK_URL_EU_PRODUCTION'],
  ['production', 'eu-central-1', 'JWK_URL_EU_PRODUCTION'],
  ['production', 'me-central-1', 'JWK_URL_EU_PRODUCTION'],
  ['production', 'ap-southeast-1', 'JWK_URL_APAC_PRODUCTION'],
  ['production', 'sa-east-1', 'JWK_URL_LATAM_PRODUCTION'],
] as const;

describe('serverless package', () => {
  it.each(PACKAGED)(
    '%s in %s: every endpoint routes GET and OPTIONS to its own function with %s',
    async (stage, region, variable) => {
      const production = await packageOnce(stage, region);
      expectPackaged(production);
      const template = production.template();

      // The API's functions are the catalogue's; beside them, only functions that serve no
      // route: the heartbeat (every stage here has alarms) and the release's pre-traffic hook.
      const functions = ofType(template, 'AWS::Lambda::Function').map(([logicalId]) => logicalId);
      expect(functions.filter((id) => API_FUNCTIONS.includes(id)).sort()).toEqual(
        [...API_FUNCTIONS].sort(),
      );
      const others = functions.filter((id) => !API_FUNCTIONS.includes(id));
      expect(others.filter((id) => !NOT_API.includes(id))).toEqual([]);
      expect(others).toContain(HEARTBEAT_LOGICAL_ID);
      for (const { lambda, method, paths } of ENDPOINTS) {
        const fn = template.Resources[lambda];
        expect(fn?.Properties).toMatchObject({
          Runtime: 'nodejs24.x',
          Environment: {
            Variables: {
              JWKS_URL: KEY_SET_VARIABLES[variable],
              JWT_ISSUER: KEY_SET_VARIABLES[variable.replace('JWK_URL', 'JWT_ISSUER')],
              DATABASE_URL: urlOf(stage),
              DATABASE_SECRET_ARN: secretIn(stage, region),
            },
          },
        });
        for (const path of paths) {
          const methods = routes(template).filter((route) => route.path === path);
          expect({ path, methods: methods.map((route) => route.method).sort() }).toEqual({
            path,
            methods: [method, 'OPTIONS'].sort(),
          });
          for (const route of methods) {
            expect(route.integration).toContain('AWS_PROXY');
            // Through the function's live alias (tools/generators/operations.ts), never $LATEST.
            expect(route.integration).toContain(JSON.stringify({ Ref: aliasLogicalId(lambda) }));
          }
        }
      }
      expect(routes(template).some((route) => route.integration.includes('MOCK'))).toBe(false);

      // The heartbeat: every minute on its own schedule, its own role, no VPC, no layer, none of
      // the key-set or database settings, no live alias and no route.
      const heartbeat = template.Resources[HEARTBEAT_LOGICAL_ID]?.Properties ?? {};
      const heartbeatVariables = Object.keys(
        (heartbeat.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ??
          {},
      );
      expect({
        role: heartbeat.Role,
        vpc: heartbeat.VpcConfig,
        layers: heartbeat.Layers,
        apiVariables: heartbeatVariables.filter((name) => API_ONLY_VARIABLES.includes(name)),
      }).toEqual({
        role: { 'Fn::GetAtt': [HEARTBEAT_ROLE_LOGICAL_ID, 'Arn'] },
        vpc: undefined,
        layers: undefined,
        apiVariables: [],
      });
      const schedules = ofType(template, 'AWS::Events::Rule')
        .filter(([, rule]) =>
          JSON.stringify(rule.Properties.Targets).includes(`"${HEARTBEAT_LOGICAL_ID}"`),
        )
        .map(([, rule]) => rule.Properties.ScheduleExpression);
      expect(schedules).toEqual(['rate(1 minute)']);
      const aliased = ofType(template, 'AWS::Lambda::Alias').map(
        ([, alias]) => (alias.Properties.FunctionName as { Ref?: string }).Ref,
      );
      expect(aliased.sort()).toEqual([...API_FUNCTIONS].sort());
      expect(routes(template).filter((route) => route.integration.includes('Heartbeat'))).toEqual(
        [],
      );
      const gatewayResponses = ofType(template, 'AWS::ApiGateway::GatewayResponse').map(
        ([, response]) => response,
      );
      expect(gatewayResponses.map((r) => r.Properties.ResponseType).sort()).toEqual([
        'DEFAULT_4XX',
        'DEFAULT_5XX',
        'INCOMPLETE_SIGNATURE',
        'INTEGRATION_FAILURE',
        'MISSING_AUTHENTICATION_TOKEN',
        'THROTTLED',
      ]);
      // Retry-After on what a caller may retry in a second: the gateway's throttle and Lambda's
      // refusals (docs/operations.md; operations.test.ts holds their status and body).
      const retried = ['INTEGRATION_FAILURE', 'THROTTLED'];
      for (const response of gatewayResponses) {
        expect({
          type: response.Properties.ResponseType,
          parameters: response.Properties.ResponseParameters,
        }).toEqual({
          type: response.Properties.ResponseType,
          parameters: {
            'gatewayresponse.header.Access-Control-Allow-Origin': "'*'",
            ...(retried.includes(String(response.Properties.ResponseType))
              ? { 'gatewayresponse.header.Retry-After': "'1'" }
              : {}),
          },
        });
        const body = JSON.parse(
          (response.Properties.ResponseTemplates as Record<string, string>)['application/json'] ??
            '',
        ) as Record<string, unknown>;
        expect(Object.keys(body)).toEqual(['state', 'code', 'message']);
      }
    },
  );

  it.each([
    ...PACKAGED.map(([stage, region]) => [stage, region] as const),
    ['dev', 'eu-west-1'] as const,
  ])(
    '%s in %s: the template holds what AWS enforces at deploy time, and names the alarms that notify nobody',
    async (stage, region) => {
      const packaged = await packageOnce(stage, region);
      expectPackaged(packaged);

      const silent = expectInvariantsHold(packaged.templatePath);
      // The deployer's documented policy grants what CloudFormation calls for each of its types.
      const { actions, unknownTypes } = templateActions(
        Object.values(packaged.template().Resources).map((resource) => resource.Type),
      );
      expect(unknownTypes).toEqual([]);
      expect(missingActions(DEPLOYER_POLICY, actions)).toEqual([]);

      // No topic here: every alarm of staging and production notifies nobody, and still packages.
      const alarms = ofType(packaged.template(), 'AWS::CloudWatch::Alarm').map(([id]) => id);
      expect(silent.map((line) => line.slice(0, line.indexOf(':')))).toEqual(
        stage === 'dev' ? [] : alarms,
      );
      expect(alarms.length > 0).toBe(stage !== 'dev');
      // The heartbeat goes with the alarms: a stage without them has none.
      expect(Object.hasOwn(packaged.template().Resources, HEARTBEAT_LOGICAL_ID)).toBe(
        stage !== 'dev',
      );
    },
    // Packaging, if the test above did not.
    120_000,
  );

  // Every stage × region serverless.yml releases (tools/release/regions.ts), dev with its own URL.
  withCfnLint.each([
    ...PACKAGED.map(([stage, region]) => [stage, region] as const),
    ['dev', 'eu-west-1'] as const,
  ])(
    '%s in %s: cfn-lint finds no error in the packaged template',
    async (stage, region) => {
      const production = await packageOnce(stage, region);
      expectPackaged(production);

      expectLintPasses(production.templatePath, region);
    },
    // Packaging, if the test above did not, and cfn-lint (about 4 s a template).
    120_000,
  );

  it('fails, naming the variable, when the key-set URL of the stage and region is missing', async () => {
    const refused = await packageService({
      region: 'sa-east-1',
      env: { ...KEY_SET_VARIABLES, JWK_URL_LATAM_PRODUCTION: '' },
    });

    expectRefused(refused, 'JWK_URL_LATAM_PRODUCTION is not set');
  });

  it('fails, naming DATABASE_SECRET_ARN, when a portal stage has no database secret', async () => {
    const refused = await packageService({
      env: {
        ...KEY_SET_VARIABLES,
        ...Object.fromEntries(Object.keys(SECRET_VARIABLES).map((name) => [name, ''])),
      },
    });

    expectRefused(
      refused,
      'DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1 is not set: the ARN of the database secret in eu-west-1, from which stage "production" reads the database credential (or DATABASE_SECRET_ARN_PRODUCTION)',
    );
  });

  it('fails for an AWS region that serves no portal region', async () => {
    const refused = await packageService({ region: 'us-east-1', env: KEY_SET_VARIABLES });

    expectRefused(refused, 'AWS region "us-east-1" serves no portal region');
  });
});

/**
 * Writes `file`, creating its folders; the returned function removes the file and every folder
 * it created, leaving what was there before.
 */
const plant = (file: string, content: string): (() => void) => {
  let created = dirname(file);
  while (!existsSync(dirname(created))) created = dirname(created);
  const firstNew = existsSync(created) ? undefined : created;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content, { flag: 'wx' });
  return () => {
    rmSync(firstNew ?? file, { recursive: true, force: true });
  };
};

describe('npm run package: what each zip holds', () => {
  it("ships each function's own bundle and its map only (the API's with the database's CAs), never a bundle left in a work folder", async () => {
    // Arrange: the bundle of a removed report, left in the default work folder (what `npm start`
    // leaves in .esbuild/) and in the one ESBUILD_WORK_FOLDER names.
    const out = tempDir('portal-release-zips-');
    const stray = join('.build', 'functions', 'removed-report.cjs');
    const strays = [join(ROOT, '.esbuild', stray), join(ROOT, WORK_FOLDER, stray)];
    const cleanups: (() => void)[] = [];
    try {
      for (const file of strays.filter((path) => !existsSync(path))) {
        cleanups.push(plant(file, 'exports.handler = async () => "removed";\n'));
        cleanups.push(plant(`${file}.map`, '{"version":3,"sources":[],"mappings":""}\n'));
      }

      // Act: dev with alarms, so that it holds the heartbeat too.
      const result = await run(
        ['--import', 'tsx', 'tools/release/main.ts', 'package', '--stage', 'dev', '--out', out],
        {
          JWKS_URL: 'https://keys.example/dev/v2/jwks.json',
          JWT_ISSUER: '',
          DATABASE_URL: 'postgres://db.example:5432/reports',
          DATABASE_SECRET_ARN: '',
          VPC_SUBNET_IDS: '',
          VPC_SECURITY_GROUP_IDS: '',
          PORTAL_SERVERLESS_BIN: '',
          ESBUILD_WORK_FOLDER: WORK_FOLDER,
          ALARMS: 'true',
        },
      );

      // Assess
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      const packaged = join(out, 'eu-west-1');
      const template = readTemplate(join(packaged, TEMPLATE));
      const zips = ofType(template, 'AWS::Lambda::Function').map(([logicalId, { Properties }]) => {
        const zip = basename((Properties.Code as { S3Key: string }).S3Key);
        return {
          logicalId,
          handler: String(Properties.Handler),
          entries: zipEntries(join(packaged, zip)),
        };
      });
      // The API's functions and the heartbeat (no gradual release in dev: no pre-traffic hook).
      expect(zips.map(({ logicalId }) => logicalId).sort()).toEqual(
        [...API_FUNCTIONS, HEARTBEAT_LOGICAL_ID].sort(),
      );
      for (const endpoint of catalogue) {
        const bundle = endpoint.handlerFile.replace(/\.ts$/, '.cjs');
        const lambda = lambdaLogicalId(endpoint.function);
        expect(zips.find((zip) => zip.logicalId === lambda)).toEqual({
          logicalId: lambda,
          handler: endpoint.handlerFile.replace(/\.ts$/, '.handler'),
          // The database's CAs, which packaging wrote (database-ca.test.ts).
          entries: [bundle, `${bundle}.map`, 'database-ca/rds-eu-west-1.pem'].sort(),
        });
      }
      // The heartbeat's bundle of functions/heartbeat.ts and its map, beside the stage's CA
      // file that serverless.yml's package patterns give every zip (it reads none).
      expect(zips.find((zip) => zip.logicalId === HEARTBEAT_LOGICAL_ID)).toEqual({
        logicalId: HEARTBEAT_LOGICAL_ID,
        handler: 'functions/heartbeat.handler',
        entries: [
          'database-ca/rds-eu-west-1.pem',
          'functions/heartbeat.cjs',
          'functions/heartbeat.cjs.map',
        ],
      });
      // Work folders the release did not make are left as they were.
      expect(
        strays.map((file) => ({ file: relative(ROOT, file), exists: existsSync(file) })),
      ).toEqual(strays.map((file) => ({ file: relative(ROOT, file), exists: true })));
    } finally {
      for (const cleanup of cleanups.reverse()) cleanup();
    }
  }, 180_000);
});
