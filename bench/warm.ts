/**
 * Goals 2 and 3, the warm path, on the deployed configuration (issue 13): bench/warm-child.ts
 * (the whole chain, reportEndpoint of middleware/compose.ts over in-memory report queries, beside
 * its anchors) bundled with serverless.yml's custom.esbuild settings and run on the registry's
 * Node of provider.runtime with its NODE_OPTIONS (none), in BENCH_REPETITIONS (3) fresh
 * processes, the load average read at the start of each; then once on this process's Node for
 * comparison. Goal 2: the chain with a token it has never seen ≤ 0.8× jose `jwtVerify` alone,
 * in every repetition (node:crypto alone and aws-jwt-verify beside it). Goal 3: the chain with a
 * repeated token ≤ 0.25× aws-jwt-verify `verifySync` alone (a bare Middy handler returning the
 * same JSON and headers beside it), judged on the interleaved protocol; the blocked protocol
 * (500 calls of one, then the next) is printed beside it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ratioGoal, type RatioGoal } from './cold';
import { describeBuild, loadAverage, nodeBinary, nodeVersion, readDeployed } from './deployed';
import { bundle, ROOT, round, runChild } from './lib';

export interface Timing {
  readonly medianUs: number;
  readonly p95Us: number;
  /** Medians of the measured run's four quarters: flat when the warm-up was long enough. */
  readonly quarterMediansUs: number[];
}

interface Phase {
  readonly warmupBlocks: number;
  readonly blockSize: number;
  /** The last two warm-up blocks' medians within 5 % for the chain and its anchor. */
  readonly settled: boolean;
  readonly blockMediansUs: Record<string, number[]>;
  readonly measured: Record<string, Timing>;
}

/** What one child reports (bench/warm-child.ts). */
export interface WarmRepetitionRaw {
  readonly node: string;
  readonly iterations: number;
  readonly fresh: Phase;
  readonly repeated: Phase & {
    readonly blocks: { size: number; rounds: number; measured: Record<string, Timing> };
  };
}

export interface WarmRepetition extends WarmRepetitionRaw {
  readonly loadAverage: string;
  readonly ratios: {
    readonly freshChainToJose: number;
    readonly freshChainToCrypto: number;
    readonly freshChainToAwsJwtVerify: number;
    readonly repeatedChainToAwsJwtVerify: number;
    readonly repeatedChainToAwsJwtVerifyBlocked: number;
    readonly repeatedChainToBareMiddy: number;
    readonly repeatedBareMiddyToAwsJwtVerify: number;
  };
}

export interface WarmRun {
  readonly label: string;
  readonly deployed: boolean;
  readonly repetitions: WarmRepetition[];
  readonly freshGoal: RatioGoal;
  readonly repeatedGoal: RatioGoal;
  readonly repeatedGoalBlocked: RatioGoal;
}

export interface WarmResult {
  readonly deployed: { runtime: string; build: string; nodeOptions: string };
  readonly runs: WarmRun[];
}

const WARM_REPETITIONS = Math.max(1, Number(process.env.BENCH_REPETITIONS ?? 3));

const ratio = (a: Timing | undefined, b: Timing | undefined): number =>
  round((a?.medianUs ?? NaN) / (b?.medianUs ?? NaN));

const withRatios = (raw: WarmRepetitionRaw, load: string): WarmRepetition => {
  const f = raw.fresh.measured;
  const r = raw.repeated.measured;
  const b = raw.repeated.blocks.measured;
  return {
    ...raw,
    loadAverage: load,
    ratios: {
      freshChainToJose: ratio(f.chain, f.jose),
      freshChainToCrypto: ratio(f.chain, f.crypto),
      freshChainToAwsJwtVerify: ratio(f.chain, f.awsJwtVerify),
      repeatedChainToAwsJwtVerify: ratio(r.chain, r.awsJwtVerify),
      repeatedChainToAwsJwtVerifyBlocked: ratio(b.chain, b.awsJwtVerify),
      repeatedChainToBareMiddy: ratio(r.chain, r.bareMiddy),
      repeatedBareMiddyToAwsJwtVerify: ratio(r.bareMiddy, r.awsJwtVerify),
    },
  };
};

export const warmPath = async (log: (line: string) => void): Promise<WarmResult> => {
  const deployed = readDeployed();
  const deployedNode = nodeBinary(deployed.nodeMajor);
  if (!deployedNode) throw new Error(`npx -p node@${deployed.nodeMajor} could not provide Node`);
  const dir = await mkdtemp(join(tmpdir(), 'portal-bench-warm-'));
  try {
    const child = join(dir, 'warm-child.cjs');
    await bundle(join(ROOT, 'bench/warm-child.ts'), child);
    log(`  build: ${describeBuild(deployed)} (serverless.yml custom.esbuild)`);
    log(`  NODE_OPTIONS: ${deployed.nodeOptions || '(none, as deployed)'}`);
    log(
      '  protocol: one fresh process per repetition; fresh tokens interleaved per token ' +
        '(chain, jose, aws-jwt-verify, node:crypto), warm-up in blocks of 200 until two ' +
        'successive block medians of the chain and jose are within 5 %, then 2,000 tokens; ' +
        'repeated token interleaved per call (chain, aws-jwt-verify, bare Middy), warm-up in ' +
        'blocks of 1,000 likewise, 2,000 calls, then 4 rounds of 500-call blocks of each',
    );
    const env = {
      ...(deployed.nodeOptions ? { NODE_OPTIONS: deployed.nodeOptions } : {}),
      ...(process.env.BENCH_ITERATIONS ? { BENCH_ITERATIONS: process.env.BENCH_ITERATIONS } : {}),
    };
    const plans = [
      { node: deployedNode, deployed: true, reps: WARM_REPETITIONS },
      { node: process.execPath, deployed: false, reps: 1 },
    ];
    const runs: WarmRun[] = [];
    for (const plan of plans) {
      const version = nodeVersion(plan.node);
      const label = plan.deployed
        ? `Node ${version} (${deployed.runtime}, deployed)`
        : `Node ${version}`;
      const repetitions: WarmRepetition[] = [];
      for (let rep = 0; rep < plan.reps; rep += 1) {
        const load = loadAverage();
        const raw = (await runChild(
          child,
          [],
          env,
          600_000,
          plan.node,
        )) as unknown as WarmRepetitionRaw;
        const repetition = withRatios(raw, load);
        repetitions.push(repetition);
        const x = repetition.ratios;
        log(
          `  ${label} rep ${rep + 1} (load ${load}): fresh chain/jose ${x.freshChainToJose}× ` +
            `(warm-up ${raw.fresh.warmupBlocks}×${raw.fresh.blockSize}, chain block medians ` +
            `${raw.fresh.blockMediansUs.chain?.join(' ') ?? ''} µs); repeated chain/aws-jwt-verify ` +
            `${x.repeatedChainToAwsJwtVerify}× interleaved, ${x.repeatedChainToAwsJwtVerifyBlocked}× in blocks ` +
            `(warm-up ${raw.repeated.warmupBlocks}×${raw.repeated.blockSize}, chain block medians ` +
            `${raw.repeated.blockMediansUs.chain?.join(' ') ?? ''} µs)`,
        );
      }
      runs.push({
        label,
        deployed: plan.deployed,
        repetitions,
        freshGoal: ratioGoal(
          repetitions.map((r) => r.ratios.freshChainToJose),
          0.8,
        ),
        repeatedGoal: ratioGoal(
          repetitions.map((r) => r.ratios.repeatedChainToAwsJwtVerify),
          0.25,
        ),
        repeatedGoalBlocked: ratioGoal(
          repetitions.map((r) => r.ratios.repeatedChainToAwsJwtVerifyBlocked),
          0.25,
        ),
      });
    }
    return {
      deployed: {
        runtime: deployed.runtime,
        build: describeBuild(deployed),
        nodeOptions: deployed.nodeOptions,
      },
      runs,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
