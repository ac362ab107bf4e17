/**
 * What `npm start` prints once the service has answered its first request (tools/start.ts):
 * where everything runs, that request as a curl, and the portal preview's address, last.
 */
import { describeSeconds, type TokenLifetime } from './token-lifetime';

export interface BannerFacts {
  /** The API, `http://localhost:PORT`. */
  readonly url: string;
  readonly database: 'embedded' | 'DATABASE_URL';
  /** DATABASE_URL's data replaced with the sample data (SEED=true). */
  readonly seeded: boolean;
  readonly keySetUrl: string;
  /** The key set is the local issuer's (no JWKS_URL). */
  readonly localIssuer: boolean;
  /** The functions' LOG_LEVEL. */
  readonly logLevel: string;
  readonly verbose: boolean;
  readonly token: string;
  /** The token's lifetime from when it was signed, just before the banner (token-lifetime.ts). */
  readonly tokenLifetime: TokenLifetime;
  readonly sampleUrl: string;
  /** What the first request was answered: 200, or 401 under a JWKS_URL. */
  readonly probeStatus: number;
  /** The portal preview, `http://localhost:PREVIEW_PORT/`. */
  readonly previewUrl: string;
}

const databaseLine = ({ database, seeded }: BannerFacts) =>
  database === 'embedded'
    ? 'embedded PGlite with the sample data'
    : `DATABASE_URL${seeded ? ', reseeded with the sample data' : ''}`;

const logsLine = ({ verbose, logLevel }: BannerFacts) =>
  verbose
    ? `routes, every request, the functions' lines from ${logLevel} up`
    : `warnings and errors (routes and every request: npm start -- --verbose)`;

const answered = ({ probeStatus, tokenLifetime: { seconds, byMaxAge } }: BannerFacts) =>
  probeStatus === 401
    ? 'answered 401: the key set of JWKS_URL does not know the local token'
    : `answered ${probeStatus}; token valid ${describeSeconds(seconds)}` +
      (byMaxAge ? ' per JWT_MAX_AGE; npm run token for another' : '');

export const banner = (facts: BannerFacts): string =>
  [
    `portal-service-api is up at ${facts.url}`,
    `  database: ${databaseLine(facts)}`,
    `  key set:  ${facts.keySetUrl} (${facts.localIssuer ? 'local issuer' : 'JWKS_URL'})`,
    `  logs:     ${logsLine(facts)}`,
    '',
    `First request (${answered(facts)}):`,
    '',
    `curl -s -H 'Authorization: Bearer ${facts.token}' \\`,
    `  '${facts.sampleUrl}'`,
    '',
    'More tokens: npm run token -- --help',
    '',
    `Portal preview: ${facts.previewUrl} (docs/preview.md)`,
    '',
  ].join('\n');
