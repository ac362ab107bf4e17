/**
 * Which variables a packaging setting is read from (docs/deployment.md, "Per-stage settings").
 * A setting that may differ per stage or region is read, most specific first, from
 * `<NAME>_<STAGE>_<REGION>`, `<NAME>_<STAGE>`, `<NAME>_<REGION>` and `<NAME>` (stage and region
 * in upper snake case: DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1). The settings that name one
 * stage's own resource (its database, network, domain, alarm topic) are read by a portal stage
 * (staging, production) from the names carrying the stage only: a name without it may hold
 * another stage's value, so one set while such a stage is packaged is refused. Unset, a setting
 * takes the stage's own default (serverless.yml's `custom.stages`), then the registry's.
 * tools/generators/settings-check.ts reads them for packaging (tools/serverless/settings.cjs) and
 * for a release (tools/release/regions.ts).
 */

import { SETTINGS } from './registry';

/**
 * Settings naming a resource of one stage, or able to weaken its protection
 * (tools/generators/registry.ts, `stageBound`).
 */
export const STAGE_BOUND: readonly string[] = SETTINGS.filter(({ stageBound }) => stageBound).map(
  ({ name }) => name,
);

/** Where a setting is read: the stage, the AWS region, and whether the stage is a portal one. */
export interface Scope {
  readonly stage: string;
  readonly region: string;
  /** The stage has a portal environment (custom.keySetVariables): staging, production. */
  readonly portal: boolean;
}

/** `eu-west-1` → `EU_WEST_1`. */
export const upperSnake = (value: string): string => value.toUpperCase().replace(/-/g, '_');

/** `VPC_SUBNET_IDS_EU_WEST_1` for (`VPC_SUBNET_IDS`, `eu-west-1`). */
export const regionalName = (name: string, region: string): string =>
  `${name}_${upperSnake(region)}`;

/** The names of `name` carrying the stage: `<NAME>_<STAGE>_<REGION>`, `<NAME>_<STAGE>`. */
export const stagedNames = (name: string, { stage, region }: Scope): string[] => {
  const staged = `${name}_${upperSnake(stage)}`;
  return [regionalName(staged, region), staged];
};

/** The names of `name` without the stage: `<NAME>_<REGION>`, `<NAME>`. */
export const unstagedNames = (name: string, { region }: Scope): string[] => [
  regionalName(name, region),
  name,
];

/** Whether a portal stage refuses `name` without the stage. */
export const isStageBound = (name: string, { portal }: Scope): boolean =>
  portal && STAGE_BOUND.includes(name);

/** The names `name` is read from for `scope`, most specific first. */
export const settingNames = (name: string, scope: Scope): string[] =>
  isStageBound(name, scope)
    ? stagedNames(name, scope)
    : [...stagedNames(name, scope), ...unstagedNames(name, scope)];

/** How a message names where `name` is set: `DOMAIN_NAME_PRODUCTION_EU_WEST_1 (or …)`. */
export const settingHint = (name: string, scope: Scope): string => {
  const [first, ...rest] = settingNames(name, scope);
  return rest.length === 0 ? String(first) : `${first} (or ${rest.join(', ')})`;
};

/** The names of `name` for `scope` that carry the region: where one region's own value goes. */
export const regionalHint = (name: string, scope: Scope): string =>
  settingNames(name, scope)
    .filter((variable) => variable.endsWith(regionalName('', scope.region)))
    .join(' or ');

/** The message refusing `variable`, a name without the stage of a stage-bound setting. */
export const unstagedMessage = (name: string, variable: string, scope: Scope): string =>
  `${variable} is set, but stage "${scope.stage}" reads ${name} only from ${stagedNames(name, scope).join(' or ')}: a name without the stage may hold another stage's value; give this stage its own, and unset ${variable}`;

/**
 * The setting `name` for `scope` from `read` (a variable's value, '' when unset): the variable it
 * came from and its value, both '' when none is set. Throws an Error when a portal stage would
 * read a stage-bound setting from a name without the stage.
 */
export const resolveSetting = (
  name: string,
  scope: Scope,
  read: (variable: string) => string,
): { variable: string; value: string } => {
  if (isStageBound(name, scope)) {
    const unstaged = unstagedNames(name, scope).find((variable) => read(variable) !== '');
    if (unstaged !== undefined) throw new Error(unstagedMessage(name, unstaged, scope));
  }
  for (const variable of settingNames(name, scope)) {
    const value = read(variable);
    if (value !== '') return { variable, value };
  }
  return { variable: name, value: '' };
};

/** Where a setting's value came from: a variable, the stage's table, or the registry. */
export type SettingSource = 'variable' | 'stage' | 'registry';

/** A setting as read for one stage and region: its value, and what set it. */
export interface ReadSetting {
  /** The variable, `custom.stages.<stage>.settings.<NAME>`, or the name for the registry's. */
  readonly variable: string;
  readonly value: string;
  readonly source: SettingSource;
}

/**
 * The one reader of a setting: `name` for `scope` from `read` (resolveSetting's precedence),
 * else the stage's default (`stageDefault`, with where it is declared), else `fallback` (the
 * registry's). Throws as resolveSetting does.
 */
export const readSetting = (
  name: string,
  scope: Scope,
  read: (variable: string) => string,
  stageDefault: { readonly variable: string; readonly value: string } | undefined,
  fallback: string,
): ReadSetting => {
  const set = resolveSetting(name, scope, read);
  if (set.value !== '') return { ...set, source: 'variable' };
  if (stageDefault !== undefined) return { ...stageDefault, source: 'stage' };
  return { variable: name, value: fallback, source: 'registry' };
};
