/**
 * The longest one request can wait on the service's peers, from the configuration: what every
 * bound adds up to when each peer fails as slowly as it may. Packaging refuses a stage whose
 * worst case does not fit below the function timeout (tools/serverless/config-check.cjs), so a
 * request is always answered by the service, in the contract's format, before Lambda stops it.
 *
 * The first request of a container is the worst: initialisation starts the key-set fetch and,
 * beside it, the secret read and the database connects; the request waits for the key set
 * (the prefetch, then one fetch of its own when that failed), and its query waits for the
 * warm-up (then reads the secret and connects once more itself when that failed) before the
 * query's own bound. A connect is bounded twice over: the TCP connect, then the startup and
 * login, each by DB_CONNECT_TIMEOUT_SECONDS.
 *
 *   initialisation: max(2 × key set, secret + 2 × connect)
 *   + the request's own secret read + 2 × connect
 *   + the query: DB_STATEMENT_TIMEOUT_MS + its margin + DB_PROXY_QUEUE_MS
 *
 * A query's deadline is also cut to the request's (shared/deadline.ts), so a container that
 * overruns this sum still answers; the sum is what lets every bound take its full length.
 */
import { KEY_SET_DEFAULTS } from '../shared/auth/key-set';
import type { ServiceConfig } from '../shared/config';
import { QUERY_MARGIN_MS } from '../shared/db/watch';

/** API Gateway's limit on an integration (REST API): the function timeout must stay below it. */
export const API_GATEWAY_TIMEOUT_SECONDS = 29;

export interface BudgetPart {
  readonly name: string;
  readonly ms: number;
}

export interface RequestBudget {
  readonly parts: readonly BudgetPart[];
  readonly totalMs: number;
}

export const requestBudget = (config: Pick<ServiceConfig, 'database'>): RequestBudget => {
  const { database } = config;
  const keySetMs = 2 * KEY_SET_DEFAULTS.timeoutMs;
  const secretMs = 'secretArn' in database ? database.secretsExtension.timeoutMs : 0;
  const connectMs = 2 * database.connectTimeoutSeconds * 1000;
  const parts: BudgetPart[] = [
    { name: 'initialisation', ms: Math.max(keySetMs, secretMs + connectMs) },
    ...(secretMs > 0 ? [{ name: 'secret', ms: secretMs }] : []),
    { name: 'connect', ms: connectMs },
    {
      name: 'query',
      ms: database.statementTimeoutMs + QUERY_MARGIN_MS + (database.proxyQueueMs ?? 0),
    },
  ];
  return { parts, totalMs: parts.reduce((sum, part) => sum + part.ms, 0) };
};

/** `initialisation 6000 ms + secret 2000 ms + … = 17500 ms`. */
export const describeBudget = ({ parts, totalMs }: RequestBudget): string =>
  `${parts.map((part) => `${part.name} ${part.ms} ms`).join(' + ')} = ${totalMs} ms`;

/**
 * Undefined when the worst case fits below `functionTimeoutSeconds`, which fits below API
 * Gateway's limit; otherwise what does not, with the sum.
 */
export const budgetProblem = (
  budget: RequestBudget,
  functionTimeoutSeconds: number,
): string | undefined => {
  if (functionTimeoutSeconds >= API_GATEWAY_TIMEOUT_SECONDS) {
    return `the function timeout (${functionTimeoutSeconds} s) must be below API Gateway's ${API_GATEWAY_TIMEOUT_SECONDS} s`;
  }
  if (budget.totalMs < functionTimeoutSeconds * 1000) return undefined;
  return (
    `one request may wait ${describeBudget(budget)} on its peers, not below the function ` +
    `timeout of ${functionTimeoutSeconds} s: lower DB_STATEMENT_TIMEOUT_MS, ` +
    `DB_PROXY_QUEUE_MS, DB_CONNECT_TIMEOUT_SECONDS or DB_SECRET_TIMEOUT_MS, or raise provider.timeout in ` +
    `serverless.yml (below ${API_GATEWAY_TIMEOUT_SECONDS} s)`
  );
};
