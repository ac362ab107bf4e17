/**
 * The worst case of one request (tools/budget.ts), from the configuration the functions load,
 * and when it does not fit the function timeout or the function timeout not API Gateway's.
 */
import { budgetProblem, describeBudget, requestBudget } from '../../../tools/budget';
import { loadConfig } from '../../../shared/config';

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/db-AbC123';
const BASE = {
  JWKS_URL: 'https://keys.example/v2/jwks.json',
  AWS_SESSION_TOKEN: 'token',
  AWS_REGION: 'eu-west-1',
};
const withUrl = { ...BASE, DATABASE_URL: 'postgres://reports@127.0.0.1/reports' };
const withSecret = { ...BASE, DATABASE_SECRET_ARN: SECRET_ARN };

describe('requestBudget', () => {
  it('adds up, for the defaults with a secret: what initialisation started, the secret read, two connect bounds and the query bound', () => {
    const budget = requestBudget(loadConfig(withSecret));

    expect(budget.parts).toEqual([
      // max(2 × 2000 ms key set, 2000 ms secret + 2 × 2 s connect)
      { name: 'initialisation', ms: 6000 },
      { name: 'secret', ms: 2000 },
      { name: 'connect', ms: 4000 },
      { name: 'query', ms: 5500 },
    ]);
    expect(budget.totalMs).toBe(17_500);
  });

  it('has no secret part with a connection string, and follows each setting', () => {
    const budget = requestBudget(
      loadConfig({ ...withUrl, DB_STATEMENT_TIMEOUT_MS: '1000', DB_CONNECT_TIMEOUT_SECONDS: '3' }),
    );

    expect(describeBudget(budget)).toBe(
      'initialisation 6000 ms + connect 6000 ms + query 1500 ms = 13500 ms',
    );
  });

  it("adds a proxy's queue allowance to the query bound", () => {
    const budget = requestBudget(loadConfig({ ...withUrl, DB_PROXY_QUEUE_MS: '4000' }));

    expect(budget.parts.at(-1)).toEqual({ name: 'query', ms: 9500 });
  });

  it('takes the key set as what initialisation waits for when the database bounds are short', () => {
    const budget = requestBudget(loadConfig({ ...withUrl, DB_CONNECT_TIMEOUT_SECONDS: '1' }));

    expect(budget.parts[0]).toEqual({ name: 'initialisation', ms: 4000 });
  });
});

describe('budgetProblem', () => {
  const defaults = requestBudget(loadConfig(withSecret));

  it('finds none when the worst case fits below the function timeout', () => {
    expect(budgetProblem(defaults, 20)).toBeUndefined();
  });

  it('shows the sum and what to change when it does not fit', () => {
    expect(budgetProblem(defaults, 17)).toBe(
      'one request may wait initialisation 6000 ms + secret 2000 ms + connect 4000 ms + query 5500 ms = 17500 ms on its peers, not below the function timeout of 17 s: lower DB_STATEMENT_TIMEOUT_MS, DB_PROXY_QUEUE_MS, DB_CONNECT_TIMEOUT_SECONDS or DB_SECRET_TIMEOUT_MS, or raise provider.timeout in serverless.yml (below 29 s)',
    );
  });

  it('refuses a function timeout API Gateway would not wait for', () => {
    expect(budgetProblem(defaults, 29)).toBe(
      "the function timeout (29 s) must be below API Gateway's 29 s",
    );
  });
});
