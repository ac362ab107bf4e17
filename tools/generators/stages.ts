/**
 * Each stage's rules, as serverless.yml declares them in `custom.stages` (docs/deployment.md,
 * "Stages"): whether the stage is guarded, whether it must verify the database's certificate,
 * its own defaults for the settings of tools/generators/registry.ts, and its functions' timeout
 * and memory. A stage the table does not name takes the `default` entry. Every generator reads a
 * stage through this: none tests a stage's name.
 */
import { settingEntry } from './registry';

/** One function's own size in a stage. */
export interface FunctionSize {
  readonly timeout?: number;
  readonly memorySize?: number;
}

export interface StageRules {
  /** The stage's name, or `default` for one the table does not name. */
  readonly entry: string;
  /**
   * A guarded stage cannot be quietly unguarded: its alarms must notify a topic (or say
   * ALARM_TOPIC_ARN_<STAGE>=none-unsafe), only ALARMS_<STAGE>=false turns them off (with a
   * warning), and its log groups outlive the stack.
   */
  readonly guarded: boolean;
  /** The database's certificate and host name must be verified (DB_TLS=verify-full). */
  readonly verifyDatabaseTls: boolean;
  /** The stage's defaults, by setting name, over the registry's. */
  readonly settings: Readonly<Record<string, string>>;
  /** Per function (its catalogue name): timeout and memory over provider's. */
  readonly functions: Readonly<Record<string, FunctionSize>>;
}

/** The stage table's fallback entry. */
export const DEFAULT_STAGE = 'default';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const flag = (value: unknown, where: string): boolean => {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new TypeError(`${where} must be true or false`);
  return value;
};

const settingsOf = (value: unknown, where: string): Record<string, string> => {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw new TypeError(`${where} must map setting names to values`);
  return Object.fromEntries(
    Object.entries(value).map(([name, setting]) => {
      try {
        settingEntry(name);
      } catch {
        throw new TypeError(`${where}.${name} is not a setting (tools/generators/registry.ts)`);
      }
      if (!['string', 'number', 'boolean'].includes(typeof setting)) {
        throw new TypeError(`${where}.${name} must be a string, a number or true/false`);
      }
      return [name, String(setting)];
    }),
  );
};

const size = (value: unknown, where: string, min: number, max: number): number | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new TypeError(`${where} must be a whole number from ${min} to ${max}`);
  }
  return value;
};

const functionsOf = (value: unknown, where: string): Record<string, FunctionSize> => {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw new TypeError(`${where} must map function names to sizes`);
  return Object.fromEntries(
    Object.entries(value).map(([name, fn]) => {
      if (!isRecord(fn)) throw new TypeError(`${where}.${name} must hold timeout or memorySize`);
      const unknown = Object.keys(fn).filter((key) => key !== 'timeout' && key !== 'memorySize');
      if (unknown.length > 0) {
        throw new TypeError(`${where}.${name}.${unknown.join(', ')}: only timeout and memorySize`);
      }
      const timeout = size(fn.timeout, `${where}.${name}.timeout`, 1, 900);
      const memorySize = size(fn.memorySize, `${where}.${name}.memorySize`, 128, 10_240);
      return [
        name,
        {
          ...(timeout === undefined ? {} : { timeout }),
          ...(memorySize === undefined ? {} : { memorySize }),
        },
      ];
    }),
  );
};

/** `stage`'s rules from serverless.yml's `custom.stages`; throws a TypeError naming the key. */
export const stageRulesOf = (table: unknown, stage: string): StageRules => {
  if (!isRecord(table)) throw new TypeError('custom.stages must map stages to their rules');
  const entry = Object.hasOwn(table, stage) ? stage : DEFAULT_STAGE;
  const rules = table[entry];
  const where = `custom.stages.${entry}`;
  if (!isRecord(rules)) {
    throw new TypeError(`${where} is missing: custom.stages needs a ${DEFAULT_STAGE} entry`);
  }
  const known = ['guarded', 'verifyDatabaseTls', 'settings', 'functions'];
  const unknown = Object.keys(rules).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    throw new TypeError(`${where}.${unknown.join(', ')}: expected ${known.join(', ')}`);
  }
  return {
    entry,
    guarded: flag(rules.guarded, `${where}.guarded`),
    verifyDatabaseTls: flag(rules.verifyDatabaseTls, `${where}.verifyDatabaseTls`),
    settings: settingsOf(rules.settings, `${where}.settings`),
    functions: functionsOf(rules.functions, `${where}.functions`),
  };
};

/** Where a stage default is named in messages: `custom.stages.production.settings.ALARMS`. */
export const stageDefaultName = (rules: StageRules, name: string): string =>
  `custom.stages.${rules.entry}.settings.${name}`;

/**
 * `stage`'s rules, or, when custom.stages is malformed, the strictest rules (guarded, the database
 * verified, no defaults of its own) with the problem in one line, for packaging to refuse among
 * its other problems.
 */
export const stageRulesOrProblem = (
  table: unknown,
  stage: string,
): { readonly rules: StageRules; readonly problem?: string } => {
  try {
    return { rules: stageRulesOf(table, stage) };
  } catch (error) {
    return {
      rules: { entry: stage, guarded: true, verifyDatabaseTls: true, settings: {}, functions: {} },
      problem: `serverless.yml: ${(error as Error).message}`,
    };
  }
};
