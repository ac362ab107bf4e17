import type { BuildResult } from '../../../tools/plugin/build';
import { BUDGET, budgetProblems, ownerLoads } from '../../../tools/plugin/budget';

const built = (index: number, indexGzip: number, chunks: Record<string, number>): BuildResult => ({
  file: '/out/index.js',
  bytes: index,
  gzipBytes: indexGzip,
  chunks: Object.entries(chunks).map(([language, bytes]) => ({
    file: `/out/${language}-AB12CD.js`,
    bytes,
    gzipBytes: Math.round(bytes / 3),
  })),
});

describe('the size budget', () => {
  it('adds each language file to index.js: what an owner of that language loads', () => {
    expect(ownerLoads(built(1000, 400, { de: 300, ar: 600 }))).toEqual([
      { language: 'en', bytes: 1000, gzipBytes: 400 },
      { language: 'de', bytes: 1300, gzipBytes: 500 },
      { language: 'ar', bytes: 1600, gzipBytes: 600 },
    ]);
  });

  it('passes a load of exactly the budget', () => {
    expect(budgetProblems(built(BUDGET.bytes - 300, BUDGET.gzipBytes - 100, { de: 300 }))).toEqual(
      [],
    );
  });

  it('fails a planted oversize language file, raw and gzipped, naming the language', () => {
    expect(budgetProblems(built(40 * 1024, 17 * 1024, { de: 2000, ar: 9 * 1024 }))).toEqual([
      `ar: ${49 * 1024} bytes, over ${48 * 1024}`,
      `ar: ${17 * 1024 + 3072} bytes gzipped, over ${19 * 1024}`,
    ]);
  });

  it('fails an oversize index.js for every owner, English included', () => {
    expect(budgetProblems(built(50_000, 1000, { es: 10 }), BUDGET)).toEqual([
      `en: 50000 bytes, over ${48 * 1024}`,
      `es: 50010 bytes, over ${48 * 1024}`,
    ]);
  });
});
