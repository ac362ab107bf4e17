/**
 * Which AWS regions a stage is released to, and whether each has its settings, read from
 * serverless.yml's own maps (custom.portalRegions, custom.keySetVariables,
 * custom.issuerVariables) so that this list and the resolvers of tools/serverless/ never
 * disagree. Checked before anything is packaged: every missing setting of every region at once.
 *
 * The variables are the resolvers' (docs/deployment.md, "Stages and regions"): per portal region
 * the key-set URL and issuer; per AWS region the `_<REGION>` forms of the database secret and the
 * VPC. Their plain names apply to a single-region package only: with several regions one value
 * would reach every region without its own, and a secret ARN, a KMS key, a layer, a subnet or a
 * security group belongs to one region, so the plain names are refused when set.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

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

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Variables naming a resource of one AWS region; their plain names only for a single region.
 * DATABASE_URL is not one: a host may serve several regions.
 */
export const REGION_BOUND = [
  'DATABASE_SECRET_ARN',
  'DATABASE_SECRET_KMS_KEY_ARN',
  'SECRETS_EXTENSION_LAYER_ARN',
  'VPC_SUBNET_IDS',
  'VPC_SECURITY_GROUP_IDS',
] as const;

const REGION_SHAPE = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
const STAGE_SHAPE = /^[A-Za-z0-9-]+$/;

/** An invalid request (a stage or region serverless.yml does not release): exit code 2. */
export class ReleaseUsageError extends Error {
  override readonly name = 'ReleaseUsageError';
}

/** `VPC_SUBNET_IDS_EU_WEST_1` for (`VPC_SUBNET_IDS`, `eu-west-1`): tools/serverless/variables.cjs. */
export const regionalName = (name: string, region: string): string =>
  `${name}_${region.toUpperCase().replace(/-/g, '_')}`;

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
const valueOf = (env: Env, name: string) => (env[name] ?? '').trim();

/**
 * The variables of a region's VPC pair (subnets, security groups), as vpc.cjs reads them: the
 * region's pair wins as a pair; the plain names only for a single region; none: outside a VPC.
 */
export const vpcVariables = (env: Env, region: string, single: boolean): string[] => {
  const names = ['VPC_SUBNET_IDS', 'VPC_SECURITY_GROUP_IDS'];
  const regional = names.map((name) => regionalName(name, region));
  if (regional.some((name) => valueOf(env, name))) return regional;
  return single && names.some((name) => valueOf(env, name)) ? names : [];
};

/**
 * Checks that every region has its settings in `env`, as the resolvers of tools/serverless/
 * will read them when each region is packaged: every problem of every region, in region order,
 * the refused plain names first. Values are not validated here: packaging does that, naming the
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
  const refuse = (variable: string, instead: string) => {
    problems.push({
      region: 'every region',
      variable,
      message: `${variable} is set: it applies only to a single-region package, and this one packages ${regions.length} regions (${regions.join(', ')}); give ${instead} for each region instead, and unset ${variable}`,
    });
  };
  if (!single) {
    for (const name of REGION_BOUND) {
      if (valueOf(env, name))
        refuse(name, `${name}_<REGION> (${regionalName(name, regions[0] ?? '')}, …)`);
    }
    if (portal && valueOf(env, 'JWT_ISSUER')) {
      refuse('JWT_ISSUER', `the issuer of each portal region (custom.issuerVariables.${stage})`);
    }
  }

  const settings = regions.map((region) => {
    const variables: Record<string, string> = {};
    const missing = (variable: string, message: string) => {
      problems.push({ region, variable, message: `${variable} is not set: ${message}` });
    };
    // The single-region fallback of a regional variable; '' when none applies.
    const fallback = (name: string) => (single && valueOf(env, name) ? name : '');
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
      else if (issuer && fallback('JWT_ISSUER')) variables.issuer = 'JWT_ISSUER';
      else if (issuer) {
        missing(
          issuer,
          `the token issuer of stage "${stage}" in portal region ${portalRegion}${single ? ' (or JWT_ISSUER, for this single-region package)' : ''}`,
        );
      }
    } else if (valueOf(env, 'JWKS_URL')) {
      variables.keySet = 'JWKS_URL';
    } else {
      missing(
        'JWKS_URL',
        `stage "${stage}" has no portal environment, so its key-set URL comes from JWKS_URL`,
      );
    }

    const secret = regionalName('DATABASE_SECRET_ARN', region);
    if (valueOf(env, secret)) variables.secret = secret;
    else if (fallback('DATABASE_SECRET_ARN')) variables.secret = 'DATABASE_SECRET_ARN';
    else if (portal) {
      missing(
        secret,
        `the ARN of the database secret in ${region}, from which stage "${stage}" reads the database credential${single ? ' (or DATABASE_SECRET_ARN, for this single-region package)' : ''}`,
      );
    }

    const pair = vpcVariables(env, region, single);
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
