/**
 * Which AWS regions a stage is released to, and whether each has its settings, read from
 * serverless.yml's own maps (custom.portalRegions, custom.keySetVariables,
 * custom.issuerVariables) so that this list and the resolvers of tools/serverless/ never
 * disagree. Checked before anything is packaged: every missing setting of every region at once.
 *
 * The variables are the resolvers' (docs/deployment.md, "Per-stage settings"): per portal region
 * the key-set URL and issuer; per stage and AWS region the database secret and the VPC
 * (tools/generators/variables.ts). A secret ARN, a KMS key, a layer, a subnet, a security group,
 * an alarm topic or a certificate belongs to one region: with several regions, their names
 * without the region would reach every region without its own, so they are refused when set.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  regionalName,
  resolveSetting,
  settingNames,
  STAGE_BOUND,
  type Scope,
  unstagedNames,
} from '../generators/variables';

export { regionalName } from '../generators/variables';

export const ROOT = join(import.meta.dirname, '../..');
export const SERVERLESS_YML = join(ROOT, 'serverless.yml');

/** What serverless.yml says about stages and regions. */
export interface ReleaseConfig {
  /** AWS region → portal region, in serverless.yml's order. */
  readonly portalRegions: Readonly<Record<string, string>>;
  /** Stage → portal region → the variable holding the key-set URL (the portal stages). */
  readonly keySetVariables: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Stage → portal region → the variable holding the issuer. */
  readonly issuerVariables: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** provider.region's default (`${opt:region, 'eu-west-1'}`): the region of other stages. */
  readonly defaultRegion: string;
  /** serverless.yml's `service`: the stack is `<service>-<stage>`. */
  readonly service: string;
}

/** A setting a region lacks, or a variable refused: one line of the report. */
export interface Problem {
  /** The AWS region, or `every region` for a variable refused for the whole release. */
  readonly region: string;
  readonly variable: string;
  readonly message: string;
}

/** Where a region's settings come from (for the line printed per region). */
export interface RegionSettings {
  readonly region: string;
  /** The portal region, or '' for a stage without a portal environment (dev). */
  readonly portalRegion: string;
  /** The variable of each setting given, by setting. */
  readonly variables: Readonly<Record<string, string>>;
}

export interface SettingsCheck {
  readonly settings: readonly RegionSettings[];
  readonly problems: readonly Problem[];
}

/** The environment a release reads its settings from. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Variables naming a resource of one AWS region; their names without the region only for a
 * single region. DATABASE_URL is not one: a host may serve several regions.
 */
export const REGION_BOUND = [
  'DATABASE_SECRET_ARN',
  'DATABASE_SECRET_KMS_KEY_ARN',
  'SECRETS_EXTENSION_LAYER_ARN',
  'VPC_SUBNET_IDS',
  'VPC_SECURITY_GROUP_IDS',
  'ALARM_TOPIC_ARN',
  'DOMAIN_CERTIFICATE_ARN',
] as const;

const REGION_SHAPE = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
const STAGE_SHAPE = /^[A-Za-z0-9-]+$/;

/** An invalid request (a stage or region serverless.yml does not release): exit code 2. */
export class ReleaseUsageError extends Error {
  override readonly name = 'ReleaseUsageError';
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const stringMap = (value: unknown, where: string): Record<string, string> => {
  if (value === undefined || value === null) return {};
  if (!isRecord(value) || Object.values(value).some((entry) => typeof entry !== 'string')) {
    throw new Error(`serverless.yml: ${where} must map names to names`);
  }
  return value as Record<string, string>;
};

const stageMaps = (value: unknown, where: string) => {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw new Error(`serverless.yml: ${where} must map stages to maps`);
  return Object.fromEntries(
    Object.entries(value).map(([stage, map]) => [stage, stringMap(map, `${where}.${stage}`)]),
  );
};

/** The maps of serverless.yml's text. */
export const parseReleaseConfig = (text: string): ReleaseConfig => {
  // The YAML parser osls itself depends on (js-yaml), from osls's own dependencies.
  const requireFromOsls = createRequire(
    createRequire(import.meta.url).resolve('osls/package.json'),
  );
  const { load } = requireFromOsls('js-yaml') as { load: (text: string) => unknown };
  const document = load(text);
  if (!isRecord(document)) throw new Error('serverless.yml: not a YAML mapping');
  const custom = isRecord(document.custom) ? document.custom : {};
  const provider = isRecord(document.provider) ? document.provider : {};
  const region = typeof provider.region === 'string' ? provider.region : '';
  const defaultRegion = /^\$\{opt:region,\s*'([a-z0-9-]+)'\}$/.exec(region)?.[1] ?? region;
  if (!REGION_SHAPE.test(defaultRegion)) {
    throw new Error(`serverless.yml: provider.region "${region}" names no default AWS region`);
  }
  return {
    portalRegions: stringMap(custom.portalRegions, 'custom.portalRegions'),
    keySetVariables: stageMaps(custom.keySetVariables, 'custom.keySetVariables'),
    issuerVariables: stageMaps(custom.issuerVariables, 'custom.issuerVariables'),
    defaultRegion,
    service: typeof document.service === 'string' ? document.service : '',
  };
};

/** serverless.yml's maps, read from the file. */
export const readReleaseConfig = (path = SERVERLESS_YML): ReleaseConfig =>
  parseReleaseConfig(readFileSync(path, 'utf8'));

/** Whether the stage has a portal environment (staging, production): per-region settings. */
export const isPortalStage = (config: ReleaseConfig, stage: string): boolean =>
  Object.hasOwn(config.keySetVariables, stage);

/**
 * The AWS regions a stage is released to: for a portal stage every region of
 * custom.portalRegions whose portal region has a key set for the stage (staging: the EU ones);
 * for another stage (dev) the default region. `requested` (from --region) narrows the list to
 * those regions; for a portal stage each must be one of its regions.
 */
export const regionsOf = (
  config: ReleaseConfig,
  stage: string,
  requested: readonly string[] = [],
): string[] => {
  if (!STAGE_SHAPE.test(stage)) {
    throw new ReleaseUsageError(`--stage "${stage}": letters, digits and "-" only`);
  }
  const wrong = requested.filter((region) => !REGION_SHAPE.test(region));
  if (wrong.length > 0) {
    throw new ReleaseUsageError(
      `--region ${wrong.map((region) => `"${region}"`).join(', ')}: expected an AWS region such as eu-west-1`,
    );
  }
  if (!isPortalStage(config, stage)) {
    return requested.length > 0 ? [...new Set(requested)] : [config.defaultRegion];
  }
  const perStage = config.keySetVariables[stage] ?? {};
  const all = Object.entries(config.portalRegions)
    .filter(([, portalRegion]) => Object.hasOwn(perStage, portalRegion))
    .map(([region]) => region);
  if (requested.length === 0) return all;
  const outside = requested.filter((region) => !all.includes(region));
  if (outside.length > 0) {
    throw new ReleaseUsageError(
      `--region ${outside.join(', ')}: not a region of stage "${stage}", whose regions are ${all.join(', ')} (custom.portalRegions, with a key set in custom.keySetVariables.${stage})`,
    );
  }
  return all.filter((region) => requested.includes(region));
};

/** The variable's value: the environment's, trimmed ('' when unset). */
export const valueOf = (env: Env, name: string): string => (env[name] ?? '').trim();

/** Whether `name` names a resource of one region, and so needs the region in a multi-region release. */
const isRegionBound = (name: string) => (REGION_BOUND as readonly string[]).includes(name);

/**
 * The names `name` is read from for `scope`, as tools/serverless/variables.cjs reads them, less
 * those a multi-region release refuses (a region-bound setting without the region).
 */
export const releaseNames = (name: string, scope: Scope, single: boolean): string[] =>
  settingNames(name, scope).filter(
    (variable) =>
      single || !isRegionBound(name) || variable.endsWith(regionalName('', scope.region)),
  );

/**
 * The variables of a region's VPC pair (subnets, security groups), as vpc.cjs reads them: the
 * most specific pair set wins as a pair; none: outside a VPC.
 */
export const vpcVariables = (env: Env, scope: Scope, single: boolean): string[] => {
  const names = ['VPC_SUBNET_IDS', 'VPC_SECURITY_GROUP_IDS'];
  const [subnets, groups] = names.map((name) => releaseNames(name, scope, single));
  const level = (subnets ?? []).findIndex(
    (variable, index) => valueOf(env, variable) || valueOf(env, groups?.[index] ?? ''),
  );
  return level === -1 ? [] : [subnets?.[level] ?? '', groups?.[level] ?? ''];
};

/**
 * Checks that every region has its settings in `env`, as the resolvers of tools/serverless/
 * will read them when each region is packaged: every problem of every region, in region order,
 * the refused names first. Values are not validated here: packaging does that, naming the
 * variable.
 */
export const checkSettings = (
  config: ReleaseConfig,
  stage: string,
  regions: readonly string[],
  env: Env,
): SettingsCheck => {
  const single = regions.length === 1;
  const portal = isPortalStage(config, stage);
  const problems: Problem[] = [];
  const refuse = (variable: string, message: string) => {
    problems.push({ region: 'every region', variable, message });
  };
  const multiple = `it applies only to a single-region package, and this one packages ${regions.length} regions (${regions.join(', ')})`;
  if (!single) {
    for (const name of REGION_BOUND) {
      // Without the region; a portal stage refuses the plain name per region, below.
      const scope = { stage, region: regions[0] ?? '', portal };
      const withoutRegion = settingNames(name, scope).filter(
        (variable) => !variable.endsWith(regionalName('', scope.region)),
      );
      for (const variable of withoutRegion.filter((v) => valueOf(env, v))) {
        refuse(
          variable,
          `${variable} is set: ${multiple}; give ${releaseNames(name, scope, false)[0]} (…) for each region instead, and unset ${variable}`,
        );
      }
    }
  }
  if (portal && valueOf(env, 'JWT_ISSUER')) {
    refuse(
      'JWT_ISSUER',
      `JWT_ISSUER is set, but stage "${stage}" reads the issuer of each portal region from custom.issuerVariables.${stage}: JWT_ISSUER may hold another stage's issuer; unset it`,
    );
  }

  const refusedPlain = new Set<string>();
  const settings = regions.map((region) => {
    const scope: Scope = { stage, region, portal };
    const variables: Record<string, string> = {};
    const problem = (variable: string, message: string) => {
      problems.push({ region, variable, message });
    };
    const missing = (variable: string, message: string) => {
      problem(variable, `${variable} is not set: ${message}`);
    };
    // A stage-bound setting set without the stage: refused, as packaging refuses it.
    for (const name of STAGE_BOUND) {
      try {
        resolveSetting(name, scope, (variable) => valueOf(env, variable));
      } catch (error) {
        const variable = unstagedNames(name, scope).find((v) => valueOf(env, v)) ?? name;
        // A name without the region is one problem of the release, not one per region.
        if (variable !== name || single) problem(variable, (error as Error).message);
        else if (!refusedPlain.has(name)) {
          refusedPlain.add(name);
          problems.push({ region: 'every region', variable, message: (error as Error).message });
        }
      }
    }
    const portalRegion = config.portalRegions[region] ?? '';

    if (portal) {
      const keySet = config.keySetVariables[stage]?.[portalRegion] ?? '';
      const issuer = config.issuerVariables[stage]?.[portalRegion] ?? '';
      if (!portalRegion) {
        problems.push({
          region,
          variable: 'custom.portalRegions',
          message: `AWS region "${region}" serves no portal region: add it to custom.portalRegions in serverless.yml`,
        });
      } else if (!issuer) {
        problems.push({
          region,
          variable: `custom.issuerVariables.${stage}`,
          message: `stage "${stage}" has no issuer for portal region ${portalRegion}: add it to custom.issuerVariables`,
        });
      }
      if (keySet && valueOf(env, keySet)) variables.keySet = keySet;
      else if (keySet) {
        missing(keySet, `the key-set URL of stage "${stage}" in portal region ${portalRegion}`);
      }
      if (issuer && valueOf(env, issuer)) variables.issuer = issuer;
      else if (issuer) {
        missing(issuer, `the token issuer of stage "${stage}" in portal region ${portalRegion}`);
      }
    } else if (valueOf(env, 'JWKS_URL')) {
      variables.keySet = 'JWKS_URL';
    } else {
      missing(
        'JWKS_URL',
        `stage "${stage}" has no portal environment, so its key-set URL comes from JWKS_URL`,
      );
    }

    const secretNames = releaseNames('DATABASE_SECRET_ARN', scope, single);
    const secret = secretNames.find((variable) => valueOf(env, variable));
    if (secret) variables.secret = secret;
    else if (portal) {
      missing(
        secretNames[0] ?? '',
        `the ARN of the database secret in ${region}, from which stage "${stage}" reads the database credential${secretNames.length > 1 ? ` (or ${secretNames.slice(1).join(', ')})` : ''}`,
      );
    }

    const pair = vpcVariables(env, scope, single);
    const [subnets = '', groups = ''] = pair;
    for (const name of pair) {
      if (!valueOf(env, name)) {
        const other = name === subnets ? groups : subnets;
        missing(
          name,
          `${other} puts the functions in ${region} in a VPC, which needs both subnets and security groups`,
        );
      }
    }
    if (pair.length > 0) variables.vpc = `${subnets}, ${groups}`;
    return { region, portalRegion, variables };
  });
  return { settings, problems };
};
