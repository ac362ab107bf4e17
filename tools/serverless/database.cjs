/**
 * Resolves the database settings of serverless.yml (docs/database.md, "The database
 * credential"): `url` and `secretArn` for provider.environment's DATABASE_URL and
 * DATABASE_SECRET_ARN, and `statements` for provider.iam.role.statements.
 *
 * Variables, each an environment variable or the serverless param of the same name, read per
 * stage and region (DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1; tools/generators/variables.ts):
 * - DATABASE_SECRET_ARN: the full ARN of the Secrets Manager secret holding the user and password
 *   (an RDS-managed secret, rds!db-…, or one of our own), in the region being packaged: a
 *   replicated secret is named by its replica's ARN there.
 * - DATABASE_SECRET_KMS_KEY_ARN: only for a secret encrypted with a customer-managed KMS key, the
 *   key's ARN, in the same region.
 * - DATABASE_URL: with a secret, only where to connect (postgres://host:port/dbname): a user or
 *   password in it fails packaging. Without one (dev and local only) the full connection string.
 *
 * The stages with a portal environment (custom.keySetVariables: staging, production) read the
 * credential from Secrets Manager, never from the template: packaging one without
 * DATABASE_SECRET_ARN fails naming it (custom.settingsCheck).
 * Other stages (dev, local) may set either, both or neither (npm start and invoke local bring
 * their own database). With a secret the functions' role may read that one secret
 * (secretsmanager:GetSecretValue), and decrypt it with the KMS key when one is given (kms:Decrypt,
 * only through Secrets Manager and only for that secret); without one the role gets nothing.
 * No message ever repeats DATABASE_URL or anything in it.
 *
 * The functions read the secret through the AWS Parameters and Secrets Lambda Extension
 * (shared/db/secrets-extension.ts), a layer: with a secret, `layers` is AWS's published layer of
 * the extension for the region (arm64, the functions' architecture; EXTENSION_LAYERS below, from
 * AWS's table of extension ARNs), or SECRETS_EXTENSION_LAYER_ARN (or its stage and region forms) for a
 * region not listed or another version (the same for every stage: its stage forms are optional).
 * Without a secret: no layer.
 */
'use strict';

const { rules, settingsOf, userError } = require('./settings.cjs');

const PARTITIONS = '(aws|aws-cn|aws-us-gov)';
const SECRET_ARN = new RegExp(
  `^arn:${PARTITIONS}:secretsmanager:([a-z0-9-]+):\\d{12}:secret:[A-Za-z0-9/_+=.@!-]+-[A-Za-z0-9]{6}$`,
);
const SECRET_SHAPE =
  'arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>, the full ARN with the suffix Secrets Manager adds (arn:aws:secretsmanager:eu-west-1:123456789012:secret:rds!db-0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b-AbC123)';
const KEY_ARN = new RegExp(`^arn:${PARTITIONS}:kms:([a-z0-9-]+):\\d{12}:key/[A-Za-z0-9-]+$`);
const KEY_SHAPE =
  'arn:aws:kms:<region>:<account>:key/<key id> (arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab), not an alias';
const LAYER_ARN = new RegExp(
  `^arn:${PARTITIONS}:lambda:([a-z0-9-]+):\\d{12}:layer:[A-Za-z0-9_-]+:\\d+$`,
);
const LAYER_SHAPE =
  'arn:aws:lambda:<region>:<account>:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:<version>';
/**
 * AWS Parameters and Secrets Lambda Extension, arm64, per portal region: the versions AWS listed
 * on 2026-07-28 ("Using Secrets Manager secrets in AWS Lambda functions", extension ARNs for
 * ARM64). A newer version: SECRETS_EXTENSION_LAYER_ARN.
 */
const EXTENSION_LAYERS = {
  'eu-west-1': 'arn:aws:lambda:eu-west-1:015030872274:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:101',
  'eu-central-1': 'arn:aws:lambda:eu-central-1:187925254637:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:101',
  'me-central-1': 'arn:aws:lambda:me-central-1:858974508948:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:49',
  'ap-southeast-1': 'arn:aws:lambda:ap-southeast-1:044395824272:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:101',
  'sa-east-1': 'arn:aws:lambda:sa-east-1:933737806257:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:100',
}; // prettier-ignore
const PROTOCOLS = ['postgres:', 'postgresql:'];
const URL_SHAPE = 'postgres://host:port/dbname';

const partitionOf = (region) =>
  region.startsWith('cn-') ? 'aws-cn' : region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws';

/**
 * An ARN of `pattern` in `region`, or a failure naming `variable`: never one of another region,
 * whose replica the setting's names carrying the region (`regionHint`) name instead.
 */
const checkArn = ({ variable, value, regionHint }, { pattern, shape, kind, replica }, region) => {
  const match = pattern.exec(value);
  if (!match) throw userError(`${variable} is not ${kind} ARN: expected ${shape}`);
  const [, partition, arnRegion] = match;
  if (arnRegion !== region) {
    throw userError(
      `${variable} names ${kind} in ${arnRegion}, but the functions are packaged for ${region}: a function reads it in its own region; use the ${replica} in ${region} through ${regionHint}`,
    );
  }
  if (partition !== partitionOf(region)) {
    throw userError(
      `${variable} is an ARN of partition ${partition}, but ${region} is in partition ${partitionOf(region)}: expected ${shape.replace('arn:aws:', `arn:${partitionOf(region)}:`)}`,
    );
  }
  return value;
};

/** The URL's parts, or null when it is no URL (never thrown: the message would repeat it). */
const parse = (url) => {
  try {
    return new globalThis.URL(url);
  } catch {
    return null;
  }
};

module.exports = async ({ resolveVariable }) => {
  const { values, problems, scope } = await settingsOf(resolveVariable);
  const { settingHint, regionalHint } = (await rules()).variables;
  const { region } = scope;
  const regional = (name) => ({ ...values[name], regionHint: regionalHint(name, scope) });
  const secret = regional('DATABASE_SECRET_ARN');
  const key = regional('DATABASE_SECRET_KMS_KEY_ARN');
  const url = values.DATABASE_URL;
  const none = { url: url.value, secretArn: '', statements: [], layers: [] };
  // A portal stage without a secret is among custom.settingsCheck's problems.
  if (problems.some((line) => line.startsWith('DATABASE_'))) return none;
  if (!secret.value) return none;

  const secretArn = checkArn(
    secret,
    {
      pattern: SECRET_ARN,
      shape: SECRET_SHAPE,
      kind: 'a secret',
      replica: "secret's replica",
    },
    region,
  );
  const keyArn = key.value
    ? checkArn(
        key,
        {
          pattern: KEY_ARN,
          shape: KEY_SHAPE,
          kind: 'a KMS key',
          replica: "key that encrypts the secret's replica",
        },
        region,
      )
    : '';

  if (url.value) {
    const parsed = parse(url.value);
    if (!parsed || !PROTOCOLS.includes(parsed.protocol)) {
      throw userError(`${url.variable} is not a PostgreSQL URL: expected ${URL_SHAPE}`);
    }
    const names = ['user', 'username', 'password'];
    if (parsed.username || parsed.password || names.some((name) => parsed.searchParams.has(name))) {
      throw userError(
        `${url.variable} names a user or password: with ${secret.variable} the user and password come from the secret; ${url.variable} holds only where to connect (${URL_SHAPE})`,
      );
    }
  }

  const statements = [
    { Effect: 'Allow', Action: ['secretsmanager:GetSecretValue'], Resource: [secretArn] },
  ];
  if (keyArn) {
    statements.push({
      Effect: 'Allow',
      Action: ['kms:Decrypt'],
      Resource: [keyArn],
      Condition: {
        StringEquals: {
          'kms:ViaService': `secretsmanager.${region}.amazonaws.com`,
          'kms:EncryptionContext:SecretARN': secretArn,
        },
      },
    });
  }
  const layer = regional('SECRETS_EXTENSION_LAYER_ARN');
  const architecture = String(
    (await resolveVariable('self:provider.architecture, null')) ?? 'x86_64',
  );
  let layerArn = EXTENSION_LAYERS[region];
  if (layer.value) {
    layerArn = checkArn(
      layer,
      {
        pattern: LAYER_ARN,
        shape: LAYER_SHAPE,
        kind: 'a layer',
        replica: "extension's layer",
      },
      region,
    );
  } else if (!layerArn || architecture !== 'arm64') {
    throw userError(
      `SECRETS_EXTENSION_LAYER_ARN is not set: the functions read ${secret.variable} through the AWS Parameters and Secrets Lambda Extension, and no layer of it is known here for ${region} (${architecture}); set ${settingHint('SECRETS_EXTENSION_LAYER_ARN', scope)} to AWS's published ARN of the extension for that region and architecture`,
    );
  }
  return { url: url.value, secretArn, statements, layers: [layerArn] };
};
