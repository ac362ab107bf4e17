/**
 * The one reading of a stage and region's settings, for every resolver of tools/serverless/ and
 * for `npm run package -- --check`: every setting of tools/generators/registry.ts read in the
 * documented precedence (tools/generators/variables.ts) over the stage's defaults
 * (tools/generators/stages.ts), and every missing or bad one found at once, one line each, so
 * that packaging and the check refuse with the same list.
 */
import { SETTINGS, settingEntry, type SettingEntry } from './registry';
import { booleanSetting, choiceSetting, numberSetting } from './settings';
import { stageDefaultName, type StageRules } from './stages';
import {
  readSetting,
  settingHint,
  settingNames,
  stagedNames,
  type ReadSetting,
  type Scope,
} from './variables';

/** What one stage and region is read from. */
export interface SettingsSource {
  readonly scope: Scope;
  readonly rules: StageRules;
  /** A variable's value (a serverless param or the environment's), trimmed; '' when unset. */
  readonly read: (variable: string) => string;
  /**
   * A portal stage: the region's portal region and the variables of its key-set URL and issuer,
   * as serverless.yml's custom maps name them ('' where they name none).
   */
  readonly portalVariables?: {
    readonly portalRegion: string;
    readonly keySet: string;
    readonly issuer: string;
  };
  /** A local command (`offline`, `invoke local`): the key set may come later. */
  readonly local?: boolean;
}

export interface SettingsRead {
  /** Every registry setting, and JWKS_URL and JWT_ISSUER, as read. */
  readonly values: Readonly<Record<string, ReadSetting>>;
  /** Every missing or refused setting, one line each. */
  readonly problems: readonly string[];
  /** What packages but should be said (a guarded stage's alarms off, alarms notifying nobody). */
  readonly warnings: readonly string[];
}

/** The ALARM_TOPIC_ARN of a guarded stage whose alarms knowingly notify nobody. */
export const NO_TOPIC = 'none-unsafe';

/** Whether a connection string holds a password (or could: one that does not parse). */
const carriesPassword = (url: string): boolean => {
  try {
    const parsed = new URL(url);
    return Boolean(parsed.password) || parsed.searchParams.has('password');
  } catch {
    return url.includes('@');
  }
};

/** The line refusing `value` of `setting` as its type says, or undefined when it fits. */
const typeProblem = (entry: SettingEntry, setting: ReadSetting): string | undefined => {
  if (setting.value === '') return undefined;
  const { type } = entry;
  try {
    if (type.kind === 'boolean') booleanSetting(setting, false);
    if (type.kind === 'number') numberSetting(setting, 0, type);
    if (type.kind === 'choice') choiceSetting(setting, type.choices, '');
    return undefined;
  } catch (error) {
    const message = (error as Error).message;
    return entry.secret ? `${setting.variable} is not valid` : message;
  }
};

/**
 * Reads every setting of `source`'s stage and region: the values, the problems that refuse
 * packaging, and the warnings packaging prints.
 */
export const readSettings = (source: SettingsSource): SettingsRead => {
  const { scope, rules, read } = source;
  const values: Record<string, ReadSetting> = {};
  const problems: string[] = [];
  const warnings: string[] = [];

  for (const entry of SETTINGS) {
    const stageValue = rules.settings[entry.name];
    const stageDefault =
      stageValue === undefined
        ? undefined
        : { variable: stageDefaultName(rules, entry.name), value: stageValue };
    let setting: ReadSetting;
    try {
      setting = readSetting(entry.name, scope, read, stageDefault, entry.default);
    } catch (error) {
      problems.push((error as Error).message);
      setting = {
        variable: entry.name,
        value: stageDefault?.value ?? entry.default,
        source: 'registry',
      };
    }
    const problem = typeProblem(entry, setting);
    if (problem) problems.push(problem);
    values[entry.name] = setting;
  }

  const plain = (name: string): ReadSetting => ({
    variable: name,
    value: read(name),
    source: read(name) === '' ? 'registry' : 'variable',
  });
  const portal = source.portalVariables;
  if (portal) {
    if (portal.portalRegion === '') {
      problems.push(
        `AWS region "${scope.region}" serves no portal region: add it to custom.portalRegions in serverless.yml`,
      );
    }
    for (const [name, variable, what, map] of [
      ['JWKS_URL', portal.keySet, 'key-set URL', 'keySetVariables'],
      ['JWT_ISSUER', portal.issuer, 'token issuer (the iss claim)', 'issuerVariables'],
    ] as const) {
      if (variable === '') {
        if (portal.portalRegion !== '') {
          problems.push(
            `custom.${map}.${scope.stage} names no ${what} for portal region ${portal.portalRegion}: add it in serverless.yml`,
          );
        }
        continue;
      }
      const value = read(variable);
      values[name] = { variable, value, source: 'variable' };
      if (value === '') {
        problems.push(
          `${variable} is not set: the ${what} of stage "${scope.stage}" in ${scope.region}`,
        );
      }
    }
    if (read('JWT_ISSUER') !== '') {
      problems.push(
        `JWT_ISSUER is set, but stage "${scope.stage}" reads the issuer of each portal region from custom.issuerVariables.${scope.stage}: JWT_ISSUER may hold another stage's issuer; unset it`,
      );
    }
  } else {
    values.JWKS_URL = plain('JWKS_URL');
    values.JWT_ISSUER = plain('JWT_ISSUER');
    if (values.JWKS_URL.value === '' && !source.local) {
      problems.push(
        `JWKS_URL is not set: stage "${scope.stage}" has no portal environment, so its key-set URL comes from JWKS_URL`,
      );
    }
  }

  const value = (name: string) => values[name]?.value ?? '';
  if (
    scope.portal &&
    value('DATABASE_SECRET_ARN') === '' &&
    carriesPassword(value('DATABASE_URL'))
  ) {
    const url = values.DATABASE_URL?.variable ?? 'DATABASE_URL';
    problems.push(
      `${url} carries a password: stage "${scope.stage}" must not hold it in the template; put the credential in Secrets Manager and set ${settingHint('DATABASE_SECRET_ARN', scope)} to the secret's ARN, with ${url} holding only where to connect (postgres://host:port/dbname)`,
    );
  } else if (scope.portal && value('DATABASE_SECRET_ARN') === '') {
    const [first, ...rest] = settingNames('DATABASE_SECRET_ARN', scope);
    problems.push(
      `${first} is not set: the ARN of the database secret in ${scope.region}, from which stage "${scope.stage}" reads the database credential${rest.length > 0 ? ` (or ${rest.join(', ')})` : ''}`,
    );
  }
  const key = values.DATABASE_SECRET_KMS_KEY_ARN as ReadSetting;
  if (key.value !== '' && value('DATABASE_SECRET_ARN') === '') {
    problems.push(
      `${key.variable} is set without DATABASE_SECRET_ARN for stage "${scope.stage}": the KMS key only decrypts the database secret; set ${settingHint('DATABASE_SECRET_ARN', scope)} to the secret's ARN, or unset ${key.variable}`,
    );
  }
  const pair = vpcPair(scope, read);
  if (pair && (pair.subnets.value === '') !== (pair.groups.value === '')) {
    const [given, missing] =
      pair.subnets.value === '' ? [pair.groups, pair.subnets] : [pair.subnets, pair.groups];
    problems.push(
      `${missing.variable} is not set: ${given.variable} puts the functions in ${scope.region} in a VPC, which needs both subnets and security groups`,
    );
  }
  if (rules.verifyDatabaseTls && !['', 'verify-full'].includes(value('DB_TLS'))) {
    problems.push(
      `${values.DB_TLS?.variable ?? 'DB_TLS'} is "${value('DB_TLS')}": stage "${scope.stage}" must verify the database's certificate and host name (DB_TLS=verify-full, the default; custom.stages.${rules.entry}.verifyDatabaseTls)`,
    );
  }
  alarmRules(source, values, problems, warnings);
  return { values, problems, warnings };
};

/** A VPC setting as packaging reads it: the variable and its value. */
export interface VpcSetting {
  readonly variable: string;
  readonly value: string;
}

/**
 * The VPC pair packaging uses, or undefined outside a VPC: the most specific level (of
 * `<NAME>_<STAGE>_<REGION>` … `<NAME>`) at which either is set, as a pair, so that ids of two
 * stages or regions are never mixed.
 */
export const vpcPair = (
  scope: Scope,
  read: (variable: string) => string,
): { readonly subnets: VpcSetting; readonly groups: VpcSetting } | undefined => {
  const subnets = settingNames('VPC_SUBNET_IDS', scope);
  const groups = settingNames('VPC_SECURITY_GROUP_IDS', scope);
  const level = subnets.findIndex(
    (variable, index) => read(variable) !== '' || read(groups[index] ?? '') !== '',
  );
  if (level === -1) return undefined;
  const at = (variable: string): VpcSetting => ({ variable, value: read(variable) });
  return { subnets: at(subnets[level] ?? ''), groups: at(groups[level] ?? '') };
};

/** A guarded stage's alarms: off only by the stage's own name, and notifying a topic. */
const alarmRules = (
  { scope, rules }: SettingsSource,
  values: Record<string, ReadSetting>,
  problems: string[],
  warnings: string[],
) => {
  const alarms = values.ALARMS as ReadSetting;
  const topic = values.ALARM_TOPIC_ARN as ReadSetting;
  const on = alarms.value !== 'false';
  const topicHint = settingHint('ALARM_TOPIC_ARN', { ...scope, portal: true });
  if (!on) {
    if (!rules.guarded) return;
    const staged = stagedNames('ALARMS', scope);
    if (alarms.source === 'variable' && !staged.includes(alarms.variable)) {
      problems.push(
        `${alarms.variable}=false: stage "${scope.stage}" is guarded, and only ${staged.join(' or ')}=false turns its alarms off`,
      );
    } else {
      warnings.push(
        `stage "${scope.stage}" in ${scope.region} is packaged without alarms (${alarms.variable}=false)`,
      );
    }
    return;
  }
  if (topic.value === NO_TOPIC && rules.guarded) {
    warnings.push(
      `stage "${scope.stage}"'s alarms in ${scope.region} notify nobody (${topic.variable}=${NO_TOPIC})`,
    );
  } else if (topic.value === '' && rules.guarded) {
    problems.push(
      `ALARM_TOPIC_ARN is not set: stage "${scope.stage}"'s alarms would notify nobody; set ${topicHint} to an SNS topic of ${scope.region}, or to ${NO_TOPIC} to package without one (a trial account only)`,
    );
  } else if (topic.value === '') {
    warnings.push(
      `stage "${scope.stage}"'s alarms in ${scope.region} notify nobody: ${topicHint} is not set`,
    );
  }
};

/** A number setting as read, checked against the registry's range. */
export const numberOf = (setting: ReadSetting, name: string): number => {
  const { type, default: fallback } = settingEntry(name);
  if (type.kind !== 'number') throw new TypeError(`${name} is not a number setting`);
  return numberSetting(setting, Number(fallback), type);
};

/** A true/false setting as read. */
export const booleanOf = (setting: ReadSetting, name: string): boolean =>
  booleanSetting(setting, settingEntry(name).default === 'true');
