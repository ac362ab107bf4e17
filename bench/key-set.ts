/**
 * Goal 4, the key set: 1,000 concurrent invocations on a cold container (a fresh
 * createDependencies, whose initialisation starts the key-set fetch) against a local key-set
 * server that counts its fetches. Reports the fetches per round (must be 1) and the time from
 * the container's creation until every invocation has answered.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { reportEndpoint } from '../middleware/compose';
import { loadConfig } from '../shared/config';
import { todayIn } from '../scripts/dates';
import { createLogger } from '../shared/logger';
import { ordersPerDay } from '../shared/reports/orders-per-day';
import { createDependencies } from '../shared/runtime';
import { createIssuer, serveKeySet } from '../scripts/local/issuer';
import { elapsedMs, median, round } from './lib';
import { lambdaContext, memoryReports, orderDayEvent, signTokens } from './fixtures';

export interface KeySetResult {
  readonly concurrency: number;
  readonly rounds: number;
  readonly fetchesPerRound: number[];
  readonly allAnsweredMedianMs: number;
  readonly allAnsweredMs: number[];
  readonly goal: string;
  readonly met: boolean;
}

export const keySetConcurrency = async (
  log: (line: string) => void,
  concurrency = 1000,
  rounds = 5,
): Promise<KeySetResult> => {
  const issuer = await createIssuer();
  let fetches = 0;
  const server = await serveKeySet(() => {
    fetches += 1;
    return issuer.publicKeySet;
  });
  try {
    log(`  signing ${concurrency} tokens`);
    const tokens = await signTokens(issuer, concurrency);
    const today = todayIn('Asia/Dubai');
    const events: APIGatewayProxyEvent[] = tokens.map((token) => orderDayEvent(token, today));
    const config = loadConfig({
      JWKS_URL: server.url,
      DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
      JWT_ISSUER: issuer.issuer,
    });
    const fetchesPerRound: number[] = [];
    const times: number[] = [];
    for (let round_ = 0; round_ < rounds + 1; round_ += 1) {
      fetches = 0;
      const start = process.hrtime.bigint();
      const deps = createDependencies(
        config,
        createLogger('error', () => undefined),
      );
      const handler = reportEndpoint(ordersPerDay, memoryReports, deps);
      const results = await Promise.all(events.map((event) => handler(event, lambdaContext())));
      const ms = elapsedMs(start);
      await deps.close();
      const failed = results.filter((r) => r.statusCode !== 200).length;
      if (failed > 0) throw new Error(`${failed} of ${concurrency} invocations did not answer 200`);
      if (round_ === 0) continue; // warm-up round
      fetchesPerRound.push(fetches);
      times.push(ms);
    }
    return {
      concurrency,
      rounds,
      fetchesPerRound,
      allAnsweredMedianMs: round(median(times), 1),
      allAnsweredMs: times.map((t) => round(t, 1)),
      goal: 'exactly 1 key-set fetch per cold container',
      met: fetchesPerRound.every((f) => f === 1),
    };
  } finally {
    await server.close();
  }
};
