/**
 * A setting the service cannot run with, its message naming the variable. A module of its own,
 * so that what reads a setting outside shared/config.ts (the database's TLS and CAs) can refuse
 * one without importing the configuration back.
 */
export class ConfigError extends TypeError {
  override readonly name = 'ConfigError';
}
