/**
 * Information beside the goals: the handler's chain (reportEndpoint of middleware/compose.ts
 * over in-memory report queries, its verifier with the container's token cache) against jose's
 * `jwtVerify` alone, aws-jwt-verify's `verifySync` alone, node:crypto alone and a bare Middy
 * handler returning the same JSON: tools/bench/warm-child.ts, bundled with serverless.yml's esbuild
 * settings and run once on the deployed Node. Medians in µs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAverage, nodeBinary, readDeployed } from './deployed';
import { bundle, ROOT, runChild } from './lib';

interface Timing {
  readonly medianUs: number;
  readonly p95Us: number;
}

export interface VerifiersResult {
  readonly loadAverage: string;
  /** Every token new: chain, jose, awsJwtVerify, crypto. */
  readonly fresh: Record<string, Timing>;
  /** One token, repeated: chain, awsJwtVerify, bareMiddy. */
  readonly repeated: Record<string, Timing>;
}

export const verifiers = async (log: (line: string) => void): Promise<VerifiersResult> => {
  const deployed = readDeployed();
  const node = nodeBinary(deployed.nodeMajor);
  if (!node) throw new Error(`npx -p node@${deployed.nodeMajor} could not provide Node`);
  const dir = await mkdtemp(join(tmpdir(), 'portal-bench-verifiers-'));
  try {
    const child = join(dir, 'warm-child.cjs');
    await bundle(join(ROOT, 'tools/bench/warm-child.ts'), child);
    const load = loadAverage();
    const raw = (await runChild(
      child,
      [],
      deployed.nodeOptions ? { NODE_OPTIONS: deployed.nodeOptions } : {},
      600_000,
      node,
    )) as {
      fresh: { measured: VerifiersResult['fresh'] };
      repeated: { measured: VerifiersResult['repeated'] };
    };
    const result = {
      loadAverage: load,
      fresh: raw.fresh.measured,
      repeated: raw.repeated.measured,
    };
    const us = (t: Record<string, Timing>) =>
      Object.entries(t)
        .map(([name, { medianUs }]) => `${name} ${medianUs}`)
        .join(', ');
    log(`  load ${load}; fresh token, median µs: ${us(result.fresh)}`);
    log(`  repeated token, median µs: ${us(result.repeated)}`);
    return result;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
