/**
 * Every package starts from an empty esbuild work folder (tools/serverless/clean-work-folder.js):
 * a bundle left in it, here the bundle of a function since removed, ships in no zip when the
 * service is packaged with the plain `serverless package` (osls's own command, as
 * `npx serverless package` runs it), and the folder is gone afterwards.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  expectPackaged,
  packageService,
  removeTemporary,
  WORK_FOLDER,
} from '../../support/packaging';
import { ROOT } from '../../support/processes';
import { unzip } from '../../support/zip';

afterAll(removeTemporary);

describe('serverless package', () => {
  it('ships no stale bundle left in the esbuild work folder, in any zip', async () => {
    // Prepare: what a removed function's last build left behind
    const functions = join(ROOT, WORK_FOLDER, '.build', 'functions');
    mkdirSync(functions, { recursive: true });
    writeFileSync(join(functions, 'removed-report.cjs'), 'exports.handler = () => 1;\n');

    // Act
    const packaged = await packageService();

    // Assess
    expectPackaged(packaged);
    const zips = readdirSync(packaged.out).filter((name) => name.endsWith('.zip'));
    expect(zips.length).toBeGreaterThanOrEqual(7);
    for (const zip of zips) {
      const names = [...unzip(readFileSync(join(packaged.out, zip))).keys()];
      expect(names.some((name) => name.endsWith('.cjs'))).toBe(true);
      expect(names.filter((name) => name.includes('removed-report'))).toEqual([]);
    }
    expect(existsSync(join(ROOT, WORK_FOLDER))).toBe(false);
  });
});
