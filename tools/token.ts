/**
 * npm run token -- [--owner owner-2] [--restaurant ID --platform PLATFORM_ID[:restaurantId] ...]
 *                  [--expires-in 1h] [--sub SUBJECT]
 * Prints a token signed by the local issuer (the key `npm start` serves). With no restaurant
 * flags, the token is the sample owner's (or --owner's) with all their restaurants. Its lifetime
 * is 1 h, or JWT_MAX_AGE seconds when that is set and shorter (tools/local/token-lifetime.ts),
 * said on stderr; an --expires-in longer than JWT_MAX_AGE is kept, with a warning on stderr.
 */
import { parseArgs } from 'node:util';
import { claimsFor, SAMPLE_OWNER, SAMPLE_OWNERS } from './db/sample-data';
import { loadOrCreateIssuer, LOCAL_ISSUER } from './local/issuer';
import { durationSeconds, localMaxAge, tokenCommandLifetime } from './local/token-lifetime';

interface Grant {
  id: string;
  platforms: { restaurantId: string; platformId: string; platformKey: string }[];
}

const usage = `usage: npm run token -- [--owner SUB] [--restaurant ID --platform PLATFORM_ID[:RESTAURANT_ID] ...] [--expires-in 1h]`;

const fail = (message: string): never => {
  process.stderr.write(`${message}\n${usage}\n`);
  process.exit(2);
};

const parse = () =>
  parseArgs({
    options: {
      owner: { type: 'string' },
      restaurant: { type: 'string', multiple: true },
      platform: { type: 'string', multiple: true },
      'expires-in': { type: 'string' },
      sub: { type: 'string' },
      help: { type: 'boolean' },
    },
    tokens: true,
    strict: true,
  });

let parsed: ReturnType<typeof parse>;
try {
  parsed = parse();
} catch (error) {
  parsed = fail(error instanceof Error ? error.message : 'invalid arguments');
}
const { values, tokens } = parsed;
if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}

const owner = values.owner
  ? (SAMPLE_OWNERS.find((candidate) => candidate.sub === values.owner) ??
    fail(
      `unknown owner ${values.owner}; sample owners: ${SAMPLE_OWNERS.map((o) => o.sub).join(', ')}`,
    ))
  : SAMPLE_OWNER;

const grants: Grant[] = [];
for (const token of tokens) {
  if (token.kind !== 'option' || token.value === undefined) continue;
  if (token.name === 'restaurant') grants.push({ id: token.value, platforms: [] });
  if (token.name === 'platform') {
    const grant = grants.at(-1) ?? fail('--platform must follow a --restaurant');
    const [platformId = '', restaurantId = grant.id] = token.value.split(':');
    if (platformId === '') fail('--platform needs a platform id such as TB_AE');
    grant.platforms.push({ platformId, platformKey: platformId, restaurantId });
  }
}

const expiresIn = values['expires-in'];
const asked =
  expiresIn === undefined
    ? undefined
    : (durationSeconds(expiresIn) ??
      fail('--expires-in takes a duration such as 90s, 15m, 1h or 7d'));
const maxAge = localMaxAge(process.env);
const lifetime = tokenCommandLifetime(
  asked,
  maxAge instanceof Error ? fail(maxAge.message) : maxAge,
);
if (lifetime.notice !== undefined) process.stderr.write(`npm run token: ${lifetime.notice}\n`);

const claims = claimsFor(owner);
if (grants.length > 0) claims.authSchema = JSON.stringify({ restaurants: grants });
if (values.sub) claims.sub = values.sub;

const issuer = await loadOrCreateIssuer(undefined, process.env.JWT_ISSUER || LOCAL_ISSUER);
process.stdout.write(`${await issuer.sign(claims, { expiresIn: `${lifetime.seconds}s` })}\n`);
