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
import { SETTINGS } from '../generators/registry';
import { readSettings, type SettingsRead } from '../generators/settings-check';
import { stageRulesOrProblem, type StageRules } from '../generators/stages';
import { regionalName, settingNames, type ReadSetting, type Scope } from '../generators/variables';

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
  /** custom.stages as written (tools/generators/stages.ts reads a stage's rules from it). */
  readonly stages: unknown;
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
  /** Every setting as packaging reads it in the region. */
  readonly values: Readonly<Record<string, ReadSetting>>;
}

export interface SettingsCheck {
  readonly settings: readonly RegionSettings[];
  readonly problems: readonly Problem[];
}

/** The environment a release reads its settings from. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Variables naming a resource of one AWS region (tools/generators/registry.ts, `regionBound`);
 * their names without the region only for a single region. DATABASE_URL is not one: a host may
 * serve several regions.
 */
export const REGION_BOUND: readonly string[] = SETTINGS.filter(
  ({ regionBound }) => regionBound,
).map(({ name }) => name);

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
    stages: custom.stages,
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
const isRegionBound = (name: string) => REGION_BOUND.includes(name);

/**
 * The names `name` is read from for `scope`, as tools/serverless/settings.cjs reads them, less
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

/** A region's settings as packaging reads them, with the stage's rules (settings-check.ts). */
export const readRegionSettings = (
  config: ReleaseConfig,
  stage: string,
  region: string,
  env: Env,
): SettingsRead & { readonly scope: Scope; readonly rules: StageRules } => {
  const scope: Scope = { stage, region, portal: isPortalStage(config, stage) };
  const { rules, problem: tableProblem } = stageRulesOrProblem(config.stages, stage);
  const portalRegion = config.portalRegions[region] ?? '';
  const portalVariables = scope.portal
    ? {
        portalRegion,
        keySet: config.keySetVariables[stage]?.[portalRegion] ?? '',
        issuer: config.issuerVariables[stage]?.[portalRegion] ?? '',
      }
    : undefined;
  const read = readSettings({
    scope,
    rules,
    read: (variable) => valueOf(env, variable),
    ...(portalVariables ? { portalVariables } : {}),
  });
  const problems = tableProblem ? [tableProblem, ...read.problems] : read.problems;
  return { ...read, problems, scope, rules };
};

/** The variable a problem line is about: every line starts with it. */
const variableOf = (message: string): string => message.split(/[\s=]/, 1)[0] ?? '';

/**
 * Checks that every region has its settings in `env`, as tools/serverless/settings.cjs will read
 * them when each region is packaged (the same lines packaging refuses with): every problem of
 * every region, in region order, the names a multi-region release refuses first.
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
  const multiple = `it applies only to a single-region package, and this one packages ${regions.length} regions (${regions.join(', ')})`;
  if (!single) {
    for (const name of REGION_BOUND) {
      const scope = { stage, region: regions[0] ?? '', portal };
      const withoutRegion = settingNames(name, scope).filter(
        (variable) => !variable.endsWith(regionalName('', scope.region)),
      );
      for (const variable of withoutRegion.filter((v) => valueOf(env, v))) {
        problems.push({
          region: 'every region',
          variable,
          message: `${variable} is set: ${multiple}; give ${releaseNames(name, scope, false)[0]} (…) for each region instead, and unset ${variable}`,
        });
      }
    }
  }
  const found: Problem[] = [];
  const settings = regions.map((region) => {
    const portalRegion = config.portalRegions[region] ?? '';
    if (portal && !portalRegion) {
      found.push({
        region,
        variable: 'custom.portalRegions',
        message: `AWS region "${region}" serves no portal region: add it to custom.portalRegions in serverless.yml`,
      });
      return { region, portalRegion, variables: {}, values: {} };
    }
    const read = readRegionSettings(config, stage, region, env);
    for (const message of read.problems) {
      found.push({ region, variable: variableOf(message), message });
    }
    const variables: Record<string, string> = {};
    const given = (name: string) => read.values[name]?.source === 'variable';
    if (given('JWKS_URL')) variables.keySet = read.values.JWKS_URL?.variable ?? '';
    if (given('JWT_ISSUER')) variables.issuer = read.values.JWT_ISSUER?.variable ?? '';
    if (given('DATABASE_SECRET_ARN'))
      variables.secret = read.values.DATABASE_SECRET_ARN?.variable ?? '';
    const pair = vpcVariables(env, read.scope, single);
    if (pair.length > 0) variables.vpc = pair.join(', ');
    return { region, portalRegion, variables, values: read.values };
  });
  // A name without stage or region refused in every region (a plain name) is said once.
  const said = new Set<string>();
  const perRegion: Problem[] = [];
  const plain = (variable: string) =>
    regions.every((region) => !variable.endsWith(regionalName('', region)));
  for (const problem of found) {
    const everywhere =
      (regions.length > 1 || problem.variable === 'JWT_ISSUER') &&
      plain(problem.variable) &&
      regions.every((region) =>
        found.some((p) => p.region === region && p.variable === problem.variable),
      );
    if (!everywhere) perRegion.push(problem);
    else if (!said.has(problem.variable)) {
      said.add(problem.variable);
      problems.push({ ...problem, region: 'every region' });
    }
  }
  problems.push(...perRegion);
  return { settings, problems };
};
