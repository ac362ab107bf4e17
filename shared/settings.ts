/**
 * The functions' settings with their limits: what shared/config.ts accepts in every container,
 * and what packaging checks before (tools/generators/registry.ts takes each function setting's
 * type, range and default from here). A setting without `default` is unset unless given.
 */
export const FUNCTION_SETTINGS = {
  JWT_AUDIENCE: {},
  JWT_CLOCK_TOLERANCE_SECONDS: { min: 0, max: 300, default: 5 },
  // Unset: no limit on a token's age; at most a year.
  JWT_MAX_AGE: { min: 1, max: 31_536_000 },
  LEGACY_PLATFORM_KEYS: {},
  LEGACY_PLATFORM_KEYS_SUNSET: {},
  LOG_LEVEL: { choices: ['debug', 'info', 'warn', 'error'], default: 'info' },
  DATABASE_URL: {},
  DATABASE_SECRET_ARN: {},
  DB_SECRET_TIMEOUT_MS: { min: 100, max: 30_000, default: 2000 },
  DB_POOL_MAX: { min: 1, max: 20, default: 2 },
  DB_STATEMENT_TIMEOUT_MS: { min: 100, max: 60_000, default: 5000 },
  DB_STATEMENT_TIMEOUT_VIA: { choices: ['startup', 'role'], default: 'startup' },
  DB_PROXY_QUEUE_MS: { min: 0, max: 20_000, default: 0 },
  DB_CONNECT_TIMEOUT_SECONDS: { min: 1, max: 60, default: 2 },
  DB_PREPARE: { boolean: true, default: true },
  DB_TLS: { choices: ['verify-full', 'require', 'disable'] },
  DB_CA: {},
  METRICS_NAMESPACE: { default: 'PortalServiceApi' },
} as const;

export type FunctionSettingName = keyof typeof FUNCTION_SETTINGS;

/** The limits of a whole-number setting. */
export interface WholeLimits {
  readonly min: number;
  readonly max: number;
  readonly default?: number;
}
