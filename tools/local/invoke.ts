/**
 * `serverless invoke local` on a fresh clone: starts whatever part of the local stack the
 * environment does not provide, and fills the sample event's placeholders.
 */
import { todayIn } from '../dates';
import { claimsFor, SAMPLE_OWNER } from '../db/sample-data';
import { fillPlaceholders, hasPlaceholders } from './placeholders';
import { startLocalStack } from './stack';

export interface LocalInvoke {
  readonly event: unknown;
  readonly env: Readonly<Record<string, string>>;
  readonly close: () => Promise<void>;
}

export const prepareLocalInvoke = async (
  event: unknown,
  env: Readonly<Record<string, string | undefined>>,
): Promise<LocalInvoke> => {
  const needsStack = !env.JWKS_URL || !env.DATABASE_URL;
  if (!needsStack && !hasPlaceholders(event)) {
    return { event, env: {}, close: () => Promise.resolve() };
  }
  const stack = await startLocalStack({
    databaseUrl: env.DATABASE_URL || undefined,
    jwksUrl: env.JWKS_URL || undefined,
    jwtIssuer: env.JWT_ISSUER || undefined,
  });
  const restaurant = SAMPLE_OWNER.restaurants[0];
  const filled = fillPlaceholders(event, {
    token: await stack.issuer.sign(claimsFor(SAMPLE_OWNER), { expiresIn: '5m' }),
    today: todayIn(restaurant?.timeZone ?? 'UTC'),
  });
  const provided = Object.fromEntries(Object.entries(stack.env).filter(([name]) => !env[name]));
  return { event: filled, env: provided, close: stack.close };
};
