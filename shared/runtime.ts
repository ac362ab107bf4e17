/**
 * Everything expensive, built once per warm container and shared by all its invocations:
 * configuration, the key set and its verifier, the database pool. Nothing tenant-specific
 * is held here.
 */
import { createKeySet } from './auth/key-set';
import type { OwnershipRules } from './auth/ownership';
import { createVerifier, type Verifier } from './auth/verifier';
import { todayIn } from './dates';
import { createSql } from './db/client';
import { loadConfig, type ServiceConfig } from './config';
import { createLogger, type Logger } from './logger';
import { createPostgresReportRepository } from './reports/postgres-repository';
import type { ReportRepository } from './reports/repository';

export interface Dependencies {
  readonly verifier: Verifier;
  readonly ownership: OwnershipRules;
  readonly reports: ReportRepository;
  readonly logger: Logger;
}

export const createDependencies = (config: ServiceConfig): Dependencies => {
  const logger = createLogger(config.logLevel);
  const keySet = createKeySet({ url: config.jwksUrl, logger });
  keySet.prefetch();
  return {
    verifier: createVerifier({
      keySet,
      clockToleranceSeconds: config.clockToleranceSeconds,
      ...(config.issuer === undefined ? {} : { issuer: config.issuer }),
    }),
    ownership: { legacy: config.legacyPlatforms, today: () => todayIn('UTC') },
    reports: createPostgresReportRepository(createSql(config.database)),
    logger,
  };
};

let container: Dependencies | undefined;

/** The container's dependencies, built on first use from the environment. */
export const containerDependencies = (): Dependencies =>
  (container ??= createDependencies(loadConfig()));
