/**
 * The database credential of staging and production comes from Secrets Manager, never from the
 * template (tools/serverless/database.cjs). Through a real `serverless
 * package --stage production` (offline): with production's DATABASE_SECRET_ARN, a KMS key and a VPC the
 * template and the service state hold no connection string and no password of the packaging
 * environment, every function gets the secret's ARN, its VPC and its reserved concurrency, and
 * the role may read that one secret and decrypt it through Secrets Manager only (the template
 * holds what AWS enforces at deploy time, and cfn-lint passes when it is on PATH); with a
 * password in DATABASE_URL and no secret packaging fails, naming
 * DATABASE_SECRET_ARN without repeating the password. The resolver's rules (each stage's own
 * names, most specific first; params; ARN shapes and regions; what DATABASE_URL may hold; local
 * stages reading the plain names) are checked by calling it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalogue } from '../../../tools/catalogue';
import { lambdaLogicalId } from '../../../tools/generators/serverless';
import { stagedNames, unstagedNames } from '../../../tools/generators/variables';
import { CFN_LINT_AVAILABLE, expectLintPasses } from '../../support/cfn-lint';
import { expectInvariantsHold } from '../../support/invariants';
import {
  expectPackaged,
  ofType,
  packageService,
  removeTemporary,
  type Template,
} from '../../support/packaging';
import { resolverOf, settingsCheckOf } from '../../support/resolvers';

const SECRET_ARN =
  'arn:aws:secretsmanager:eu-west-1:123456789012:secret:rds!db-0123abcd-4567-89ef-0123-456789abcdef-AbC123';
const KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const SUBNETS = ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'];
const SECURITY_GROUP = 'sg-0a1b2c3d4e5f60718';
/** Decrypting with KEY_ARN, through Secrets Manager in eu-west-1 and for SECRET_ARN only. */
const KMS_DECRYPT = {
  Effect: 'Allow',
  Action: ['kms:Decrypt'],
  Resource: [KEY_ARN],
  Condition: {
    StringEquals: {
      'kms:ViaService': 'secretsmanager.eu-west-1.amazonaws.com',
      'kms:EncryptionContext:SecretARN': SECRET_ARN,
    },
  },
};
/** A password in the packaging environment that must reach neither the template nor the output. */
const PLANTED_PASSWORD = 'Planted-Db-Password-7Qx9';

/** Every variable the database resolver reads, for each stage and region of these tests. */
const DATABASE_NAMES = [
  ...new Set(
    [
      'DATABASE_SECRET_ARN',
      'DATABASE_SECRET_KMS_KEY_ARN',
      'DATABASE_URL',
      'SECRETS_EXTENSION_LAYER_ARN',
    ].flatMap((name) =>
      ['production', 'staging', 'dev', 'local'].flatMap((stage) =>
        ['eu-west-1', 'sa-east-1', 'us-east-1'].flatMap((region) => {
          const scope = { stage, region, portal: false };
          return [...stagedNames(name, scope), ...unstagedNames(name, scope)];
        }),
      ),
    ),
  ),
];
/** AWS's Parameters and Secrets extension layers (arm64) that packaging picks per region. */
const EXTENSION_LAYER = (region: string, account: string, version: number): string =>
  `arn:aws:lambda:${region}:${account}:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:${version}`;
const EU_WEST_1_LAYER = EXTENSION_LAYER('eu-west-1', '015030872274', 101);
/** Packaging with the secret a test gives, in a VPC; no database variable from the caller's. */
const ENV = {
  ...Object.fromEntries(DATABASE_NAMES.map((name) => [name, ''])),
  VPC_SUBNET_IDS_PRODUCTION: SUBNETS.join(','),
  VPC_SECURITY_GROUP_IDS_PRODUCTION: SECURITY_GROUP,
};

type Statement = {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
};
const ENDPOINT_FUNCTIONS = catalogue.map((endpoint) => lambdaLogicalId(endpoint.function));

afterAll(removeTemporary);

const packageWith = (env: Record<string, string>) => packageService({ env: { ...ENV, ...env } });

/** The function of each endpoint of the catalogue (the release's own functions aside). */
const functionsOf = (template: Template) =>
  ofType(template, 'AWS::Lambda::Function')
    .filter(([logicalId]) => ENDPOINT_FUNCTIONS.includes(logicalId))
    .map(([, fn]) => fn);
const statementsOf = (template: Template): Statement[] => {
  const policies = template.Resources.IamRoleLambdaExecution?.Properties.Policies as {
    PolicyDocument: { Statement: Statement[] };
  }[];
  return policies.flatMap((policy) => policy.PolicyDocument.Statement);
};
/** IAM takes one action or resource or a list of them (osls writes a list of one as itself). */
const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

describe('serverless package: the database credential', () => {
  it('packages production with the secret’s ARN only, and lets the role read that one secret', async () => {
    // Arrange: passwords elsewhere in the packaging environment stay there
    const packaged = await packageWith({
      DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1: SECRET_ARN,
      DATABASE_SECRET_KMS_KEY_ARN_PRODUCTION: KEY_ARN,
      DATABASE_PASSWORD: PLANTED_PASSWORD,
      PGPASSWORD: PLANTED_PASSWORD,
    });

    // Assess: packaged, with nothing of a connection string or a password in what is deployed
    expectPackaged(packaged);
    const { result } = packaged;
    expect(result.stdout + result.stderr).not.toContain(PLANTED_PASSWORD);
    for (const path of [packaged.templatePath, join(packaged.out, 'serverless-state.json')]) {
      const text = readFileSync(path, 'utf8');
      expect({ path, postgres: /postgres(ql)?:\/\//i.test(text) }).toEqual({
        path,
        postgres: false,
      });
      expect(text).not.toContain(PLANTED_PASSWORD);
    }
    const template = packaged.template();
    const functions = functionsOf(template);
    expect(functions).toHaveLength(catalogue.length);
    for (const fn of functions) {
      const { Variables } = fn.Properties.Environment as { Variables: Record<string, string> };
      expect({ url: Variables.DATABASE_URL, secret: Variables.DATABASE_SECRET_ARN }).toEqual({
        url: '',
        secret: SECRET_ARN,
      });
      expect(fn.Properties.VpcConfig).toEqual({
        SubnetIds: SUBNETS,
        SecurityGroupIds: [SECURITY_GROUP],
      });
      expect(fn.Properties.ReservedConcurrentExecutions).toEqual(expect.any(Number));
      expect(fn.Properties.Layers).toEqual([EU_WEST_1_LAYER]);
      expect(Variables.PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED).toBe('false');
    }

    // Assess: GetSecretValue on that one secret, and kms:Decrypt only through Secrets Manager
    const statements = statementsOf(template);
    const secrets = statements.filter((s) =>
      listOf(s.Action).some((action) => String(action).startsWith('secretsmanager:')),
    );
    expect(secrets.map((s) => ({ ...s, Resource: listOf(s.Resource) }))).toEqual([
      { Effect: 'Allow', Action: ['secretsmanager:GetSecretValue'], Resource: [SECRET_ARN] },
    ]);
    const keys = statements.filter((s) =>
      listOf(s.Action).some((action) => String(action).startsWith('kms:')),
    );
    expect(keys.map((s) => ({ ...s, Resource: listOf(s.Resource) }))).toEqual([KMS_DECRYPT]);

    expectInvariantsHold(packaged.templatePath);
    if (CFN_LINT_AVAILABLE) expectLintPasses(packaged.templatePath, 'eu-west-1');
  });

  it('fails production with a password in DATABASE_URL, naming DATABASE_SECRET_ARN without repeating it', async () => {
    const { result } = await packageWith({
      DATABASE_URL_PRODUCTION: `postgres://reports:${PLANTED_PASSWORD}@db.example:5432/reports`,
    });

    expect(result.code).not.toBe(0);
    const output = result.stdout + result.stderr;
    expect(output).toContain('DATABASE_URL_PRODUCTION carries a password: stage "production"');
    expect(output).toContain('set DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1');
    expect(output).not.toContain(PLANTED_PASSWORD);
    expect(output).not.toContain('db.example');
  });
});

type Resolved = { url: string; secretArn: string; statements: Statement[]; layers: string[] };
describe('tools/serverless/database.cjs', () => {
  const resolve = resolverOf<Resolved>('tools/serverless/database.cjs', DATABASE_NAMES);
  /** Resolves for `stage` in `region` with these environment variables and serverless params. */
  const resolveWith = (
    stage: string,
    region: string,
    env: Record<string, string>,
    params: Record<string, string> = {},
    architecture = 'arm64',
  ) =>
    resolve(
      {
        'sls:stage': stage,
        'self:provider.region': region,
        'self:provider.architecture, null': architecture,
        'self:custom.keySetVariables': {
          staging: { EU: 'JWK_URL_EU_STAGING' },
          production: { EU: 'JWK_URL_EU_PRODUCTION', LATAM: 'JWK_URL_LATAM_PRODUCTION' },
        },
      },
      env,
      params,
    );

  /** custom.settingsCheck for `stage` in `region`: the refusal lists every problem found. */
  const checkWith = settingsCheckOf(DATABASE_NAMES);

  /** The failure's message, checked to repeat none of `secrets`. */
  const failureOf = async (resolving: Promise<unknown>, secrets: readonly string[] = []) => {
    const error = await resolving.then(
      () => new Error('resolved'),
      (reason: unknown) => reason as Error,
    );
    for (const secret of secrets) expect(error.message).not.toContain(secret);
    return error.message;
  };

  const secretIn = (region: string) =>
    `arn:aws:secretsmanager:${region}:123456789012:secret:portal/production/database-AbC123`;
  const grant = (arn: string) => ({
    Effect: 'Allow',
    Action: ['secretsmanager:GetSecretValue'],
    Resource: [arn],
  });
  /** SECRET_ARN in eu-west-1: that secret, its permission and the region's extension layer. */
  const withSecret = (url: string) => ({
    url,
    secretArn: SECRET_ARN,
    statements: [grant(SECRET_ARN)],
    layers: [EU_WEST_1_LAYER],
  });

  /** `name` as `stage` reads it without the region: DATABASE_URL_PRODUCTION, DATABASE_URL in dev. */
  const own = (stage: string, name: string) =>
    ['production', 'staging'].includes(stage) ? `${name}_${stage.toUpperCase()}` : name;

  it('gives the secret’s ARN, where to connect and that one secret’s permission', async () => {
    await expect(
      resolveWith('production', 'eu-west-1', {
        DATABASE_SECRET_ARN_PRODUCTION: ` ${SECRET_ARN} `,
        DATABASE_URL_PRODUCTION: 'postgresql://db.example:5432/reports',
      }),
    ).resolves.toEqual(withSecret('postgresql://db.example:5432/reports'));
  });

  it('adds kms:Decrypt, through Secrets Manager and for that secret only, with a KMS key', async () => {
    const { statements } = await resolveWith('staging', 'eu-west-1', {
      DATABASE_SECRET_ARN_STAGING: SECRET_ARN,
      DATABASE_SECRET_KMS_KEY_ARN_STAGING: KEY_ARN,
    });
    expect(statements).toEqual([grant(SECRET_ARN), KMS_DECRYPT]);
  });

  it('takes the stage’s name with the region over the one without, for each variable', async () => {
    const key = 'arn:aws:kms:sa-east-1:123456789012:key/mrk-0123456789abcdef0123456789abcdef';
    const resolved = await resolveWith('production', 'sa-east-1', {
      DATABASE_SECRET_ARN_PRODUCTION: SECRET_ARN,
      DATABASE_SECRET_ARN_PRODUCTION_SA_EAST_1: secretIn('sa-east-1'),
      DATABASE_SECRET_KMS_KEY_ARN_PRODUCTION: KEY_ARN,
      DATABASE_SECRET_KMS_KEY_ARN_PRODUCTION_SA_EAST_1: key,
      DATABASE_URL_PRODUCTION: 'postgres://db.eu.example/reports',
      DATABASE_URL_PRODUCTION_SA_EAST_1: 'postgres://db.sa.example/reports',
    });
    expect(resolved).toMatchObject({
      url: 'postgres://db.sa.example/reports',
      secretArn: secretIn('sa-east-1'),
    });
    expect(resolved.statements.map((s) => s.Resource)).toEqual([[secretIn('sa-east-1')], [key]]);
  });

  it('reads dev from DATABASE_URL_DEV_<REGION>, DATABASE_URL_DEV, DATABASE_URL_<REGION>, DATABASE_URL in turn', async () => {
    // Arrange: the names most specific first; each less specific one set too
    const names = [
      'DATABASE_URL_DEV_SA_EAST_1',
      'DATABASE_URL_DEV',
      'DATABASE_URL_SA_EAST_1',
      'DATABASE_URL',
    ];
    const urlOf = (name: string) => `postgres://${name.toLowerCase().replace(/_/g, '-')}/reports`;

    // Act
    const urls = [];
    for (const index of names.keys()) {
      const env = Object.fromEntries(names.slice(index).map((name) => [name, urlOf(name)]));
      urls.push((await resolveWith('dev', 'sa-east-1', env)).url);
    }

    // Assess
    expect(urls).toEqual(names.map(urlOf));
  });

  it('prefers a serverless param to the environment variable of the same name', async () => {
    await expect(
      resolveWith(
        'production',
        'eu-west-1',
        {
          DATABASE_SECRET_ARN_PRODUCTION: 'not-an-arn',
          DATABASE_URL_PRODUCTION: 'postgres://env.example/reports',
        },
        {
          DATABASE_SECRET_ARN_PRODUCTION: SECRET_ARN,
          DATABASE_URL_PRODUCTION: 'postgres://param.example/reports',
        },
      ),
    ).resolves.toMatchObject({ url: 'postgres://param.example/reports', secretArn: SECRET_ARN });
  });

  it.each([
    [
      'staging',
      'production',
      `DATABASE_SECRET_ARN_STAGING_EU_WEST_1 is not set: the ARN of the database secret in eu-west-1, from which stage "staging" reads the database credential (or DATABASE_SECRET_ARN_STAGING)`,
    ],
    [
      'production',
      'staging',
      `DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1 is not set: the ARN of the database secret in eu-west-1, from which stage "production" reads the database credential (or DATABASE_SECRET_ARN_PRODUCTION)`,
    ],
  ])(
    'fails %s without a secret of its own (%s’s set), naming DATABASE_SECRET_ARN',
    async (stage, other, message) => {
      const others = {
        [own(other, 'DATABASE_SECRET_ARN')]: SECRET_ARN,
        [`${own(other, 'DATABASE_SECRET_ARN')}_EU_WEST_1`]: SECRET_ARN,
      };
      expect(await failureOf(checkWith(stage, 'eu-west-1', others))).toContain(message);
      // Where to connect is not enough: the user and password are the secret's.
      expect(
        await failureOf(
          checkWith(stage, 'eu-west-1', {
            ...others,
            [own(stage, 'DATABASE_URL')]: 'postgres://reports@db.example/x',
          }),
        ),
      ).toContain(message);
    },
  );

  it.each([
    ['production', 'DATABASE_SECRET_ARN', 'DATABASE_SECRET_ARN'],
    ['production', 'DATABASE_SECRET_ARN_EU_WEST_1', 'DATABASE_SECRET_ARN'],
    ['staging', 'DATABASE_URL_EU_WEST_1', 'DATABASE_URL'],
    ['staging', 'DATABASE_SECRET_KMS_KEY_ARN', 'DATABASE_SECRET_KMS_KEY_ARN'],
  ])(
    'refuses %s with %s, a name without the stage, even beside the stage’s own',
    async (stage, variable, name) => {
      const values: Record<string, string> = {
        DATABASE_SECRET_ARN: SECRET_ARN,
        DATABASE_SECRET_KMS_KEY_ARN: KEY_ARN,
        DATABASE_URL: 'postgres://db.example/reports',
      };
      const message = await failureOf(
        checkWith(stage, 'eu-west-1', {
          [own(stage, 'DATABASE_SECRET_ARN')]: SECRET_ARN,
          [own(stage, name)]: values[name] ?? '',
          [variable]: values[name] ?? '',
        }),
      );
      expect(message).toContain(
        `${variable} is set, but stage "${stage}" reads ${name} only from ${own(stage, name)}_EU_WEST_1 or ${own(stage, name)}: a name without the stage may hold another stage's value; give this stage its own, and unset ${variable}`,
      );
    },
  );

  it('fails a deployed stage with a password in DATABASE_URL, naming DATABASE_SECRET_ARN and repeating nothing of it', async () => {
    const url = `postgres://reports:${PLANTED_PASSWORD}@db.example:5432/reports`;
    const message = await failureOf(
      checkWith('production', 'eu-west-1', { DATABASE_URL_PRODUCTION_EU_WEST_1: url }),
      [PLANTED_PASSWORD, 'db.example', 'reports:'],
    );
    expect(message).toMatch(
      /DATABASE_URL_PRODUCTION_EU_WEST_1 carries a password: stage "production" must not hold it in the template; put the credential in Secrets Manager and set DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1/,
    );
  });

  it('lets dev and local hold the whole connection string, or nothing, without a secret', async () => {
    const url = `postgres://reports:${PLANTED_PASSWORD}@localhost:5432/reports`;
    await expect(resolveWith('dev', 'eu-west-1', { DATABASE_URL: url })).resolves.toEqual({
      url,
      secretArn: '',
      statements: [],
      layers: [],
    });
    await expect(resolveWith('local', 'eu-west-1', {})).resolves.toEqual({
      url: '',
      secretArn: '',
      statements: [],
      layers: [],
    });
    await expect(
      resolveWith('dev', 'eu-west-1', { DATABASE_SECRET_ARN: SECRET_ARN }),
    ).resolves.toEqual(withSecret(''));
  });

  it('adds the Parameters and Secrets extension for the region, or SECRETS_EXTENSION_LAYER_ARN', async () => {
    // The layer is no stage's own resource: production reads it without the stage too.
    const ownLayer = EXTENSION_LAYER('sa-east-1', '123456789012', 7);
    const secret = { DATABASE_SECRET_ARN_PRODUCTION_SA_EAST_1: secretIn('sa-east-1') };
    await expect(resolveWith('production', 'sa-east-1', secret)).resolves.toMatchObject({
      layers: [EXTENSION_LAYER('sa-east-1', '933737806257', 100)],
    });
    await expect(
      resolveWith('production', 'sa-east-1', {
        ...secret,
        SECRETS_EXTENSION_LAYER_ARN_SA_EAST_1: ownLayer,
      }),
    ).resolves.toMatchObject({ layers: [ownLayer] });
  });

  it.each([
    ['a region with no known layer', 'us-east-1', 'arm64', {}],
    ['another architecture', 'eu-west-1', 'x86_64', {}],
  ])(
    'fails for %s without SECRETS_EXTENSION_LAYER_ARN, naming it',
    async (_case, region, architecture, extra) => {
      const message = await failureOf(
        resolveWith(
          'production',
          region,
          { DATABASE_SECRET_ARN_PRODUCTION: secretIn(region), ...extra },
          {},
          architecture,
        ),
      );
      expect(message).toMatch(/^SECRETS_EXTENSION_LAYER_ARN is not set: /);
    },
  );

  it('refuses an extension layer of another region', async () => {
    const message = await failureOf(
      resolveWith('production', 'eu-west-1', {
        DATABASE_SECRET_ARN_PRODUCTION: SECRET_ARN,
        SECRETS_EXTENSION_LAYER_ARN: EXTENSION_LAYER('sa-east-1', '933737806257', 100),
      }),
    );
    expect(message).toMatch(/^SECRETS_EXTENSION_LAYER_ARN names a layer in sa-east-1/);
  });

  it.each([
    ['a name', 'portal/production/database'],
    [
      'an ARN without the 6-character suffix',
      'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal',
    ],
    ['another service', 'arn:aws:ssm:eu-west-1:123456789012:parameter/portal/database-AbC123'],
    ['an 11-digit account', 'arn:aws:secretsmanager:eu-west-1:12345678901:secret:portal/db-AbC123'],
    ['another partition name', 'arn:aws-xx:secretsmanager:eu-west-1:123456789012:secret:db-AbC123'],
    ['a connection string', `postgres://reports:${PLANTED_PASSWORD}@db.example/reports`],
  ])('refuses %s as DATABASE_SECRET_ARN, showing the expected shape', async (_, value) => {
    const message = await failureOf(
      resolveWith('production', 'eu-west-1', { DATABASE_SECRET_ARN_PRODUCTION: value }),
      [value, PLANTED_PASSWORD],
    );
    expect(message).toMatch(
      /^DATABASE_SECRET_ARN_PRODUCTION is not a secret ARN: expected arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>/,
    );
  });

  it('refuses a secret of another region, pointing to its replica in the region packaged', async () => {
    expect(
      await failureOf(
        resolveWith('production', 'sa-east-1', { DATABASE_SECRET_ARN_PRODUCTION: SECRET_ARN }),
      ),
    ).toMatch(
      /^DATABASE_SECRET_ARN_PRODUCTION names a secret in eu-west-1, but the functions are packaged for sa-east-1: .*secret's replica in sa-east-1 through DATABASE_SECRET_ARN_PRODUCTION_SA_EAST_1$/,
    );
    expect(
      await failureOf(
        resolveWith('production', 'eu-west-1', {
          DATABASE_SECRET_ARN_PRODUCTION: SECRET_ARN.replace('arn:aws:', 'arn:aws-cn:'),
        }),
      ),
    ).toContain(
      'DATABASE_SECRET_ARN_PRODUCTION is an ARN of partition aws-cn, but eu-west-1 is in partition aws',
    );
  });

  it.each([
    [
      'a key without a secret',
      { DATABASE_SECRET_KMS_KEY_ARN: KEY_ARN },
      '{KEY} is set without DATABASE_SECRET_ARN',
    ],
    [
      'an alias',
      {
        DATABASE_SECRET_ARN: SECRET_ARN,
        DATABASE_SECRET_KMS_KEY_ARN: 'arn:aws:kms:eu-west-1:123456789012:alias/portal',
      },
      '{KEY} is not a KMS key ARN: expected arn:aws:kms:<region>:<account>:key/<key id>',
    ],
    [
      'a key of another region',
      {
        DATABASE_SECRET_ARN: SECRET_ARN,
        DATABASE_SECRET_KMS_KEY_ARN: KEY_ARN.replace('eu-west-1', 'eu-central-1'),
      },
      '{KEY} names a KMS key in eu-central-1',
    ],
  ])('refuses %s, naming the variable', async (_, settings, message) => {
    for (const stage of ['production', 'dev']) {
      const env = Object.fromEntries(
        Object.entries(settings).map(([name, value]) => [own(stage, name), value]),
      );
      const key = own(stage, 'DATABASE_SECRET_KMS_KEY_ARN');
      // Without a secret, the settings check refuses; with one, the resolver checks its shape.
      const resolving = 'DATABASE_SECRET_ARN' in settings ? resolveWith : checkWith;
      expect(await failureOf(resolving(stage, 'eu-west-1', env))).toContain(
        message.replace('{KEY}', key),
      );
    }
  });

  it.each([
    ['a user', 'postgres://reports@db.example:5432/reports'],
    ['a user and password', `postgres://reports:${PLANTED_PASSWORD}@db.example:5432/reports`],
    ['a password only', `postgresql://:${PLANTED_PASSWORD}@db.example/reports`],
    ['a password parameter', `postgres://db.example/reports?password=${PLANTED_PASSWORD}`],
    ['a user parameter', 'postgres://db.example/reports?user=reports'],
  ])('refuses DATABASE_URL with %s beside a secret, in any stage', async (_, url) => {
    for (const stage of ['production', 'dev']) {
      const [secret, where] = [own(stage, 'DATABASE_SECRET_ARN'), own(stage, 'DATABASE_URL')];
      const message = await failureOf(
        resolveWith(stage, 'eu-west-1', { [secret]: SECRET_ARN, [where]: url }),
        [url, PLANTED_PASSWORD, 'db.example'],
      );
      expect(message).toMatch(
        new RegExp(
          `^${where} names a user or password: with ${secret} the user and password come from the secret`,
        ),
      );
    }
  });

  it.each(['mysql://db.example/reports', 'db.example:5432/reports', 'postgres://db example/x'])(
    'refuses %s as where to connect beside a secret',
    async (url) => {
      const message = await failureOf(
        resolveWith('production', 'eu-west-1', {
          DATABASE_SECRET_ARN_PRODUCTION: SECRET_ARN,
          DATABASE_URL_PRODUCTION: url,
        }),
        [url, 'db.example'],
      );
      expect(message).toBe(
        'DATABASE_URL_PRODUCTION is not a PostgreSQL URL: expected postgres://host:port/dbname',
      );
    },
  );
});
