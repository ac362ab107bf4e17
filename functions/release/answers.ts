/**
 * Whether a checked function's answers are healthy: its answer to the pre-traffic event
 * (shared/release/pre-traffic-contract.ts), read by the hook and the heartbeat, and to the
 * unauthenticated request (the contract's 401, spec 5.3, 7, 4.3), read by the hook.
 */
import { MESSAGES, type ErrorBody } from '../../shared/errors';
import { nameAndCode } from '../../shared/release/pre-traffic-contract';
import { isObject, type Fields } from './fields';

/** Spec 7's 401 bodies for a request without a credential: the bearer's, and the API key's. */
const UNAUTHENTICATED_BODIES: readonly ErrorBody[] = [
  { state: 'ERROR', code: 'TOKEN_INVALID', message: MESSAGES.headerInvalid },
  { state: 'ERROR', code: 'TOKEN_INVALID', message: MESSAGES.tokenUnverifiable },
];

const sameBody = (body: unknown, expected: ErrorBody): boolean =>
  isObject(body) &&
  Object.keys(body).length === Object.keys(expected).length &&
  body.state === expected.state &&
  body.code === expected.code &&
  body.message === expected.message;

/** Why the answer to the pre-traffic event is not healthy (database and key set each `ok` or `none`); undefined when it is. */
export const preTrafficProblem = (answer: unknown): string | undefined => {
  if (!isObject(answer) || answer.check !== 'pre-traffic') return 'not a pre-traffic answer';
  const named = (error: unknown, code: unknown) => nameAndCode(error, code, 'Error');
  const problems: string[] = [];
  if (answer.database === 'failed') {
    problems.push(`database failed (${named(answer.error, answer.code)})`);
  } else if (answer.database !== 'ok' && answer.database !== 'none') {
    return 'not a pre-traffic answer';
  }
  // A key set that cannot be fetched: every token would be refused.
  if (answer.keySet === 'failed') {
    problems.push(`key set failed (${named(answer.keySetError, answer.keySetCode)})`);
  } else if (answer.keySet !== 'ok' && answer.keySet !== 'none') {
    return 'not a pre-traffic answer';
  }
  // Without JWT_ISSUER a token of any issuer would verify.
  if (answer.issuer === 'unset') problems.push('issuer not set (JWT_ISSUER)');
  else if (answer.issuer !== 'set' && answer.issuer !== 'none') return 'not a pre-traffic answer';
  return problems.length === 0 ? undefined : problems.join('; ');
};

/** A header's value in a gateway result, in any case, single- or multi-valued. */
const headerOf = (result: Fields, name: string): unknown => {
  const wanted = name.toLowerCase();
  for (const key of ['headers', 'multiValueHeaders']) {
    const headers = result[key];
    if (!isObject(headers)) continue;
    const found = Object.entries(headers).find(([header]) => header.toLowerCase() === wanted);
    if (found !== undefined) return Array.isArray(found[1]) ? found[1][0] : found[1];
  }
  return undefined;
};

/** Why the answer to the unauthenticated request is not the contract's 401; undefined when it is. */
export const unauthenticatedProblem = (answer: unknown): string | undefined => {
  if (!isObject(answer) || typeof answer.statusCode !== 'number') {
    return 'not an API Gateway result';
  }
  if (answer.statusCode !== 401) return `status ${answer.statusCode}, not 401`;
  let body: unknown;
  try {
    body = typeof answer.body === 'string' ? JSON.parse(answer.body) : undefined;
  } catch {
    body = undefined;
  }
  if (!UNAUTHENTICATED_BODIES.some((expected) => sameBody(body, expected))) {
    return "body is not the contract's 401 TOKEN_INVALID";
  }
  if (headerOf(answer, 'Access-Control-Allow-Origin') !== '*') {
    return 'no Access-Control-Allow-Origin: * header';
  }
  return undefined;
};
