/**
 * The information rows beside the warm goal, in a fresh process: tools/bench/verifiers.ts bundles
 * this file with serverless.yml's esbuild settings and runs it on the deployed Node. The chain
 * is reportEndpoint(ordersPerDay) with its queries answered from memory, its verifier built as
 * createDependencies builds it (token cache included). Prints one `BENCH {…}` line.
 *
 * Fresh token: per token, interleaved in this order, the chain, jose `jwtVerify`,
 * aws-jwt-verify `verifySync` and node:crypto alone (`crypto.verify` on a key imported once,
 * then the payload parsed); each token is new to all four. Repeated token: one token, per call
 * the chain, aws-jwt-verify `verifySync` and a bare Middy handler returning the chain's JSON
 * and headers; then the same three again in blocks of 500 calls.
 *
 * Warm-ups run in blocks until the block medians of the chain and of its anchor have stopped
 * moving (two successive blocks within BENCH_SETTLED, 5 %) or a cap; then BENCH_ITERATIONS
 * (2,000) measured calls.
 */
import { createPublicKey, verify } from 'node:crypto';
import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { JwtVerifier } from 'aws-jwt-verify';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { claimsFor, SAMPLE_OWNER } from '../db/sample-data';
import { todayIn } from '../dates';
import { createIssuer, serveKeySet } from '../local/issuer';
import type { GatewayResult } from '../../shared/http/event';
import {
  buildChain,
  lambdaContext,
  orderDayEvent,
  productionVerifier,
  signTokens,
} from './fixtures';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 2000);
const SETTLED = Number(process.env.BENCH_SETTLED ?? 0.05);
const FRESH_BLOCK = 200;
const FRESH_BLOCKS = { min: 4, max: 20 };
const REPEAT_BLOCK = 1000;
const REPEAT_BLOCKS = { min: 5, max: 30 };
const BLOCKED = { size: 500, rounds: 4 };

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = (sorted.length - 1) / 2;
  return ((sorted[Math.floor(mid)] ?? NaN) + (sorted[Math.ceil(mid)] ?? NaN)) / 2;
};
const p95 = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.round(0.95 * (sorted.length - 1)))] ?? NaN;
};
const us = (value: number): number => Math.round(value * 10) / 10;
const now = (): bigint => process.hrtime.bigint();
const since = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e3;

type Samples = Record<string, number[]>;

const summary = (samples: Samples) =>
  Object.fromEntries(
    Object.entries(samples).map(([name, list]) => {
      const quarter = Math.floor(list.length / 4);
      return [
        name,
        {
          medianUs: us(median(list)),
          p95Us: us(p95(list)),
          quarterMediansUs: [0, 1, 2, 3].map((q) =>
            us(median(list.slice(q * quarter, (q + 1) * quarter))),
          ),
        },
      ];
    }),
  );

/** Whether the last two block medians of every name in `watch` are within SETTLED. */
const settled = (blocks: Record<string, number[]>, watch: readonly string[]): boolean =>
  watch.every((name) => {
    const list = blocks[name] ?? [];
    const [a, b] = [list.at(-2), list.at(-1)];
    return a !== undefined && b !== undefined && Math.abs(b - a) / a <= SETTLED;
  });

/**
 * Runs `step(i, samples)` in warm-up blocks of `size` until settled (within min/max blocks),
 * then ITERATIONS measured steps; returns the block medians and the measured samples.
 */
const warmThenMeasure = async (
  names: readonly string[],
  watch: readonly string[],
  size: number,
  limits: { min: number; max: number },
  step: (samples: Samples) => Promise<void>,
  beforeBlock: (count: number) => Promise<void> = () => Promise.resolve(),
) => {
  const empty = (): Samples => Object.fromEntries(names.map((n) => [n, [] as number[]]));
  const blocks: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  let count = 0;
  while (count < limits.max && (count < limits.min || !settled(blocks, watch))) {
    await beforeBlock(size);
    const samples = empty();
    for (let i = 0; i < size; i += 1) await step(samples);
    for (const name of names) blocks[name]?.push(us(median(samples[name] ?? [])));
    count += 1;
  }
  await beforeBlock(ITERATIONS);
  const measured = empty();
  for (let i = 0; i < ITERATIONS; i += 1) await step(measured);
  return {
    warmupBlocks: count,
    blockSize: size,
    settled: settled(blocks, watch),
    blockMediansUs: blocks,
    measured: summary(measured),
  };
};

const main = async (): Promise<void> => {
  const issuer = await createIssuer();
  const server = await serveKeySet(() => issuer.publicKeySet);
  try {
    const today = todayIn('Asia/Dubai');
    const chain = buildChain(issuer, server.url, productionVerifier);
    const localSet = createLocalJWKSet(issuer.publicKeySet);
    const joseOptions = { issuer: issuer.issuer, algorithms: ['RS256'], requiredClaims: ['exp'] };
    const aws = JwtVerifier.create({ issuer: issuer.issuer, audience: null, jwksUri: server.url });
    const [jwk] = issuer.publicKeySet.keys;
    if (!jwk) throw new Error('no key');
    aws.cacheJwks({ keys: [jwk as never] });
    const publicKey = createPublicKey({ key: jwk as never, format: 'jwk' });
    const cryptoAlone = (token: string): unknown => {
      const [head = '', body = '', signature = ''] = token.split('.');
      if (
        !verify(
          'sha256',
          Buffer.from(`${head}.${body}`),
          publicKey,
          Buffer.from(signature, 'base64url'),
        )
      ) {
        throw new Error('bad signature');
      }
      return JSON.parse(Buffer.from(body, 'base64url').toString()) as unknown;
    };
    const check = (result: GatewayResult): void => {
      if (result.statusCode !== 200)
        throw new Error(`chain answered ${result.statusCode}: ${result.body}`);
    };

    // Fresh tokens: every token new to all four.
    let pending: string[] = [];
    let next = 0;
    let signed = 0;
    const fresh = await warmThenMeasure(
      ['chain', 'jose', 'awsJwtVerify', 'crypto'],
      ['chain', 'jose'],
      FRESH_BLOCK,
      FRESH_BLOCKS,
      async (samples) => {
        const token = pending[next] ?? '';
        next += 1;
        const event = orderDayEvent(token, today);
        let start = now();
        check(await chain(event, lambdaContext()));
        samples.chain?.push(since(start));
        start = now();
        await jwtVerify(token, localSet, joseOptions);
        samples.jose?.push(since(start));
        start = now();
        aws.verifySync(token);
        samples.awsJwtVerify?.push(since(start));
        start = now();
        cryptoAlone(token);
        samples.crypto?.push(since(start));
      },
      async (count) => {
        // Signed outside the timed steps, just before the block that uses them; every jti new.
        pending = [];
        for (let i = 0; i < count; i += 1) {
          signed += 1;
          const claims = { ...claimsFor(SAMPLE_OWNER), jti: `fresh-${signed}` };
          pending.push(await issuer.sign(claims, { expiresIn: '2h' }));
        }
        next = 0;
      },
    );

    // One token, repeated; a fresh chain so that its cache holds this token alone.
    const cached = buildChain(issuer, server.url, productionVerifier);
    const [token = ''] = await signTokens(issuer, 1);
    const event: APIGatewayProxyEvent = orderDayEvent(token, today);
    const reference = await cached(event, lambdaContext());
    check(reference);
    const body = JSON.parse(reference.body) as unknown;
    const headers = { ...reference.headers } as Record<string, string>;
    const bare = middy<APIGatewayProxyEvent, GatewayResult>().handler(() =>
      Promise.resolve({ statusCode: 200, headers: { ...headers }, body: JSON.stringify(body) }),
    );
    const bareCheck = await bare(event, lambdaContext());
    if (bareCheck.body !== reference.body) throw new Error('bare Middy answers other JSON');
    const calls = {
      chain: async () => {
        check(await cached(event, lambdaContext()));
      },
      awsJwtVerify: () => {
        aws.verifySync(token);
        return Promise.resolve();
      },
      bareMiddy: async () => {
        await bare(event, lambdaContext());
      },
    };
    const names = Object.keys(calls) as (keyof typeof calls)[];
    const repeated = await warmThenMeasure(
      names,
      ['chain', 'awsJwtVerify'],
      REPEAT_BLOCK,
      REPEAT_BLOCKS,
      async (samples) => {
        for (const name of names) {
          const start = now();
          await calls[name]();
          samples[name]?.push(since(start));
        }
      },
    );
    // The other protocol: blocks of 500 calls of one, the three in turn.
    const blocked: Samples = Object.fromEntries(names.map((n) => [n, [] as number[]]));
    for (let r = 0; r < BLOCKED.rounds; r += 1) {
      for (const name of names) {
        for (let i = 0; i < BLOCKED.size; i += 1) {
          const start = now();
          await calls[name]();
          blocked[name]?.push(since(start));
        }
      }
    }
    const result = {
      node: process.version,
      iterations: ITERATIONS,
      fresh,
      repeated: {
        ...repeated,
        blocks: { size: BLOCKED.size, rounds: BLOCKED.rounds, measured: summary(blocked) },
      },
    };
    process.stdout.write(`\nBENCH ${JSON.stringify(result)}\n`);
  } finally {
    await server.close();
  }
};

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
