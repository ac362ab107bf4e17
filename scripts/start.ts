/**
 * npm start: the whole service on this machine. Starts the local stack (embedded database and
 * local issuer unless DATABASE_URL / JWKS_URL point elsewhere), then serverless-offline with
 * the functions on exactly the spec's paths at http://localhost:$PORT, and prints a curl.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { addDays, todayIn } from '../shared/dates';
import { claimsFor, SAMPLE_OWNER } from './db/sample-data';
import { startLocalStack } from './local/stack';

const port = Number(process.env.PORT ?? '3000');
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  process.stderr.write('PORT must be a TCP port number\n');
  process.exit(2);
}

const stack = await startLocalStack({
  databaseUrl: process.env.DATABASE_URL,
  jwksUrl: process.env.JWKS_URL,
  jwtIssuer: process.env.JWT_ISSUER,
  seed: process.env.SEED === 'true',
});
process.stdout.write(
  `database: ${stack.embedded ? 'embedded PGlite (sample data)' : 'DATABASE_URL'}\n` +
    `key set:  ${stack.env.JWKS_URL}\n`,
);

const serverless = createRequire(import.meta.url).resolve('osls/bin/serverless.js');
const child = spawn(
  process.execPath,
  [serverless, 'offline', 'start', '--stage', 'local', '--httpPort', String(port)],
  {
    env: { ...process.env, ...stack.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  },
);

let announced = false;
const relay = (target: NodeJS.WriteStream) => (chunk: Buffer) => {
  target.write(chunk);
  if (!announced && /Server ready/i.test(chunk.toString())) {
    announced = true;
    void announce();
  }
};
child.stdout.on('data', relay(process.stdout));
child.stderr.on('data', relay(process.stderr));

const announce = async () => {
  const restaurant = SAMPLE_OWNER.restaurants[0];
  if (!restaurant) return;
  const to = todayIn(restaurant.timeZone);
  const token = await stack.issuer.sign(claimsFor(SAMPLE_OWNER), { expiresIn: '12h' });
  process.stdout.write(
    `\nportal-service-api is up at http://localhost:${port}. Try (token valid 12 h):\n\n` +
      `curl -s -H 'Authorization: Bearer ${token}' \\\n` +
      `  'http://localhost:${port}/v1/restaurants/${restaurant.id}/reports/orders/day?from=${addDays(to, -6)}&to=${to}'\n\n` +
      `More tokens: npm run token -- --help\n`,
  );
};

let stopping = false;
const stop = async (code: number) => {
  if (stopping) return;
  stopping = true;
  child.kill('SIGTERM');
  await stack.close();
  process.exit(code);
};
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
child.on('exit', (code) => void stop(code ?? 1));
