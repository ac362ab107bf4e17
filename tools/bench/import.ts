/**
 * npm run bench:import — throughput of npm run import (BENCHMARKS.md "Import throughput").
 * Generates a brand's export (BENCH_IMPORT_ORDERS orders, default 1,000,000, 1 to 3 lines each,
 * over 4 restaurants with 2 platforms each and a year of days, 5% cancelled or rejected) and
 * its restaurant declarations, then per repetition (BENCH_IMPORT_REPS, default 3): recreates
 * the scratch database import_bench on the server of BENCH_ADMIN_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres), migrates it, and runs the real command line
 * (tsx tools/db/import.ts) three times: the first import into the empty database (every order
 * inserted: the bulk load of docs/import.md), a re-import of the same file (every order
 * unchanged), and a further file of new orders (a fifth as many, over the same days: the
 * ordinary path, into days that hold orders and rollup rows). Prints the load average at the
 * start, each run's wall time and orders/s, and checks the rollups against a full recompute
 * after each repetition.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { findDrift } from '../db/drift';
import { migrate } from '../db/migrate';

const ORDERS = Number(process.env.BENCH_IMPORT_ORDERS ?? 1_000_000);
const REPS = Number(process.env.BENCH_IMPORT_REPS ?? 3);
const ADMIN_URL =
  process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = 'import_bench';
const ROOT = join(import.meta.dirname, '../..');
const TSX = createRequire(import.meta.url).resolve('tsx/cli');

const RESTAURANTS = [
  { id: 'B-1', zone: 'Asia/Dubai', currency: 'AED', minor: 2 },
  { id: 'B-2', zone: 'Asia/Kuwait', currency: 'KWD', minor: 3 },
  { id: 'B-3', zone: 'Europe/Berlin', currency: 'EUR', minor: 2 },
  { id: 'B-4', zone: 'America/Mexico_City', currency: 'MXN', minor: 2 },
] as const;
const PLATFORMS = ['TB', 'HS'] as const;
const DISHES = ['Falafel wrap', 'Hummus bowl', 'Shawarma plate', 'Lemon mint', 'Kunafa', 'Soup'];

/** mulberry32, deterministic. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

/** Writes `count` orders numbered from `first` (brand ids O-<n>), one JSON object a line. */
const writeOrders = async (path: string, first: number, count: number, seed: number) => {
  const out = createWriteStream(path);
  const next = random(seed);
  const start = Date.UTC(2025, 11, 1);
  let chunk = '';
  for (let n = first; n < first + count; n += 1) {
    const r = RESTAURANTS[n % RESTAURANTS.length] ?? RESTAURANTS[0];
    const platform = PLATFORMS[Math.floor(n / RESTAURANTS.length) % PLATFORMS.length] ?? 'TB';
    const scale = 10 ** r.minor;
    const lines = [];
    let total = 0;
    const lineCount = 1 + Math.floor(next() * 3);
    for (let i = 0; i < lineCount; i += 1) {
      const price = Math.floor(next() * 30 * scale);
      const quantity = 1 + Math.floor(next() * 3);
      total += price * quantity;
      lines.push({
        dish: DISHES[Math.floor(next() * DISHES.length)] ?? 'Soup',
        quantity,
        unitPrice: (price / scale).toFixed(r.minor),
      });
    }
    const roll = next();
    const placedAt = new Date(start + Math.floor(next() * 365 * 86_400_000));
    chunk += `${JSON.stringify({
      restaurantId: r.id,
      platformId: `${platform}_X`,
      orderId: `O-${String(n)}`,
      placedAt: placedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      state: roll < 0.03 ? 'CANCELLED' : roll < 0.05 ? 'REJECTED' : 'DELIVERED',
      total: (total / scale).toFixed(r.minor),
      lines,
    })}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk))
        await new Promise<void>((resolve) =>
          out.once('drain', () => {
            resolve();
          }),
        );
      chunk = '';
    }
  }
  out.end(chunk);
  await new Promise<void>((resolve) =>
    out.once('finish', () => {
      resolve();
    }),
  );
};

const generate = async (
  dir: string,
): Promise<{ orders: string; further: string; restaurants: string }> => {
  const restaurants = join(dir, 'restaurants.ndjson');
  await writeFile(
    restaurants,
    RESTAURANTS.map((r) =>
      JSON.stringify({
        restaurantId: r.id,
        name: `Bench ${r.id}`,
        timeZone: r.zone,
        currency: r.currency,
        minorUnits: r.minor,
        platforms: PLATFORMS.map((p) => ({
          platformId: `${p}_X`,
          platformRestaurantId: `${p}-${r.id}`,
        })),
      }),
    ).join('\n') + '\n',
  );
  const orders = join(dir, 'orders.ndjson');
  await writeOrders(orders, 0, ORDERS, 42);
  // A further export: as many new orders as a fifth of the first, over the same days.
  const further = join(dir, 'further.ndjson');
  await writeOrders(further, ORDERS, Math.ceil(ORDERS / 5), 43);
  return { orders, further, restaurants };
};

const runImport = (url: string, args: readonly string[]) =>
  new Promise<{ code: number | null; stdout: string; stderr: string; seconds: number }>(
    (resolve, reject) => {
      const started = performance.now();
      const child = spawn(process.execPath, [TSX, 'tools/db/import.ts', ...args], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: url },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        resolve({ code, stdout, stderr, seconds: (performance.now() - started) / 1000 });
      });
    },
  );

const databaseUrl = (): string => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DATABASE}`;
  return url.toString();
};

const main = async () => {
  const load = loadavg().map((value) => value.toFixed(2));
  process.stdout.write(`load average at start: ${load.join(' ')}\n`);
  const dir = await mkdtemp(join(tmpdir(), 'import-bench-'));
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
  try {
    let generated = performance.now();
    const files = await generate(dir);
    generated = (performance.now() - generated) / 1000;
    process.stdout.write(`generated ${String(ORDERS)} orders in ${generated.toFixed(1)} s\n`);
    for (let rep = 1; rep <= REPS; rep += 1) {
      await admin.unsafe(`drop database if exists ${DATABASE}`);
      await admin.unsafe(`create database ${DATABASE}`);
      const url = databaseUrl();
      const sql = postgres(url, { max: 1, onnotice: () => undefined });
      try {
        await migrate(sql);
        const declared = await runImport(url, ['--restaurants', files.restaurants]);
        if (declared.code !== 0) throw new Error(`declarations failed: ${declared.stderr}`);
        const runs = [
          { run: 'first import', file: files.orders, orders: ORDERS },
          { run: 're-import', file: files.orders, orders: ORDERS },
          { run: 'further file', file: files.further, orders: Math.ceil(ORDERS / 5) },
        ] as const;
        for (const { run, file, orders } of runs) {
          const result = await runImport(url, ['--file', file]);
          if (result.code !== 0) throw new Error(`${run} failed: ${result.stderr}`);
          const rate = Math.round(orders / result.seconds);
          const line = `rep ${String(rep)} ${run}: ${result.seconds.toFixed(1)} s, ${String(rate)} orders/s — ${result.stdout.trim()}`;
          process.stdout.write(`${line}\n`);
        }
        const drift = await findDrift(sql);
        process.stdout.write(
          `rep ${String(rep)} rollups: ${drift.length === 0 ? 'equal a full recompute' : `${String(drift.length)} rows differ`}\n`,
        );
      } finally {
        await sql.end();
      }
      await admin.unsafe(`drop database if exists ${DATABASE}`);
    }
  } finally {
    await admin.end();
    await rm(dir, { recursive: true, force: true });
  }
};

await main();
