/**
 * `serverless package` (osls, offline) for the packaging suites: into a folder of its own, in an
 * environment where no packaging setting leaks in from the caller's, the CloudFormation template
 * read back. A suite removes what it packaged with `afterAll(removeTemporary)`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NO_TOPIC } from '../../tools/generators/operations';
import { reservedConcurrencyVariable } from '../../tools/generators/serverless';
import { STAGE_BOUND, stagedNames, unstagedNames } from '../../tools/generators/variables';
import { catalogue } from '../../tools/catalogue';
import { ROOT, run, SERVERLESS, type Finished } from './processes';

/** A resource as osls writes it: every one the tests read has Properties. */
export interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly DependsOn?: string | string[];
  readonly UpdatePolicy?: Record<string, unknown>;
}
export interface Template {
  readonly Resources: Record<string, Resource>;
  readonly Outputs?: Record<string, unknown>;
}

export const TEMPLATE = 'cloudformation-template-update-stack.json';

export const readTemplate = (path: string): Template =>
  JSON.parse(readFileSync(path, 'utf8')) as Template;

/** The resources of `type`, with their logical ids. */
export const ofType = (template: Template, type: string): [string, Resource][] =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

/** The settings the packaging suites leave unset unless a test sets them. */
const UNSET = [
  ...STAGE_BOUND.flatMap((name) =>
    ['production', 'staging', 'dev'].flatMap((stage) => {
      const scope = { stage, region: 'eu-west-1', portal: false };
      return [...stagedNames(name, scope), ...unstagedNames(name, scope)];
    }),
  ),
  'JWT_ISSUER',
  'RESERVED_CONCURRENCY',
  ...catalogue.map((endpoint) => reservedConcurrencyVariable(endpoint.function)),
  'DB_MAX_CONNECTIONS',
  'DB_POOL_MAX',
  'DB_PREPARE',
  'DB_TLS',
];

/**
 * Production in eu-west-1 with the least it needs: the EU production key set and issuer, where
 * to connect and the database secret (the user and password are the secret's), and alarms that
 * knowingly notify no topic (in any region), each under production's own name; the rest unset.
 */
export const PACKAGING_ENV: Readonly<Record<string, string>> = {
  ...Object.fromEntries(UNSET.map((name) => [name, ''])),
  JWK_URL_EU_PRODUCTION: 'https://keys.example/eu-production/v2/jwks.json',
  JWT_ISSUER_EU_PRODUCTION: 'https://portal.example/eu-production',
  DATABASE_URL_PRODUCTION: 'postgres://db.example:5432/reports',
  DATABASE_SECRET_ARN_PRODUCTION:
    'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/production/database-AbC123',
  ALARM_TOPIC_ARN_PRODUCTION: NO_TOPIC,
};

/** The esbuild work folder of this Jest worker's packaging, under the project. */
export const WORK_FOLDER = `.esbuild-test-${process.pid}`;

const temporary: string[] = [];
/** A new folder under the system's temporary one, removed by removeTemporary. */
export const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporary.push(dir);
  return dir;
};
/** Removes what tempDir made and the esbuild work folder. */
export const removeTemporary = (): void => {
  for (const path of [join(ROOT, WORK_FOLDER), ...temporary.splice(0)]) {
    rmSync(path, { recursive: true, force: true });
  }
};

export interface PackageOptions {
  readonly stage?: string;
  readonly region?: string;
  /** Over PACKAGING_ENV; '' unsets a setting. */
  readonly env?: Readonly<Record<string, string>>;
  /** `--param NAME=value` each. */
  readonly params?: readonly string[];
}

export interface Packaged {
  readonly result: Finished;
  /** The folder packaged into. */
  readonly out: string;
  readonly templatePath: string;
  /** The template written (packaging must have succeeded). */
  template(): Template;
}

/** `serverless package --stage <stage> --region <region> --package <a new folder>`. */
export const packageService = async ({
  stage = 'production',
  region = 'eu-west-1',
  env = {},
  params = [],
}: PackageOptions = {}): Promise<Packaged> => {
  const out = tempDir('portal-package-');
  const result = await run(
    [
      SERVERLESS,
      'package',
      ...['--stage', stage, '--region', region, '--package', out],
      ...params.flatMap((param) => ['--param', param]),
    ],
    { ...PACKAGING_ENV, ...env, ESBUILD_WORK_FOLDER: WORK_FOLDER },
  );
  const templatePath = join(out, TEMPLATE);
  return { result, out, templatePath, template: () => readTemplate(templatePath) };
};

/** Expects packaging to have succeeded (showing serverless's output when not). */
export const expectPackaged = ({ result }: Packaged): void => {
  const output = result.code === 0 ? '' : result.stdout + result.stderr;
  expect({ code: result.code, output }).toEqual({ code: 0, output: '' });
};

/** Expects packaging to have failed, saying `message`. */
export const expectRefused = ({ result }: Packaged, message: string): void => {
  expect(result.code).not.toBe(0);
  expect(result.stdout + result.stderr).toContain(message);
};
