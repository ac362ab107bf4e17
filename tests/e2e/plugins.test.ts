/**
 * End to end over HTTP: `npm start` on a free port with its embedded defaults (no
 * DATABASE_URL, no JWKS_URL), then `npm run deploy:plugin` against its registry with the local
 * deployment key, and the registry as the portal reads it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_PLUGIN_API_KEY, SAMPLE_PLUGIN_V1_BUNDLE_URL } from '../../tools/db/seed-plugins';
import { browserPreflight, SPEC_CORS, specCorsOf } from '../support/handlers';
import { run } from '../support/processes';
import { freshEnv, startService, TSX, type RunningService } from '../support/service';

const CDN = 'https://cdn.example.com/e2e/';

let service: RunningService;
let base = '';
let token = '';
const bundleDir = mkdtempSync(join(tmpdir(), 'portal-plugin-bundle-'));

beforeAll(async () => {
  service = await startService('e2e-plugins');
  ({ base, token } = service);
}, 150_000);

afterAll(async () => {
  await service.stop();
  rmSync(bundleDir, { recursive: true, force: true });
});

const deploy = (apiKey: string, file: string, ...flags: string[]) =>
  run([TSX, 'tools/deploy-plugin.ts', '--file', file, '--region', 'eu', ...flags], {
    ...freshEnv(),
    PLUGIN_UPDATE_URL: `${base}/v1/plugins/reports`,
    PLUGIN_API_KEY: apiKey,
    PLUGIN_CDN_URL: CDN,
  });

const plugins = async (portalVersion: string) => {
  const response = await fetch(`${base}/v1/plugins?portalVersion=${portalVersion}`, {
    headers: { Authorization: `Bearer ${token}`, Origin: 'https://portal.example.com' },
  });
  return { status: response.status, body: await response.json() };
};

const bundle = (name: string) => {
  const file = join(bundleDir, name);
  writeFileSync(file, 'export default {};\n');
  return file;
};

describe('npm run deploy:plugin against npm start', () => {
  it('deploys a v2 bundle the v2 portal then lists, leaving v1 unchanged', async () => {
    // Prepare
    const file = bundle('reports.2f6c1a.js');
    const bundleUrl = 'https://cdn.example.com/e2e/eu/reports/reports.2f6c1a.js';

    // Act
    const deployed = await deploy(LOCAL_PLUGIN_API_KEY, file, '--portal-version', 'v2');
    const [v2, v1] = [await plugins('v2'), await plugins('v1')];

    // Assess
    expect({ code: deployed.code, stderr: deployed.stderr }).toEqual({
      code: 0,
      stderr: `deploy:plugin: ${bundleUrl} (portal v2)\nPUT ${base}/v1/plugins/reports -> HTTP 200 OK\n`,
    });
    expect(JSON.parse(deployed.stdout)).toEqual({
      data: { code: 'reports', portalVersion: 'v2', bundleUrl },
    });
    expect(`${deployed.stdout}${deployed.stderr}`).not.toContain(LOCAL_PLUGIN_API_KEY);
    expect(v2).toEqual({
      status: 200,
      body: [{ code: 'reports', route: 'reports', bundleUrl }],
    });
    expect(v1).toEqual({
      status: 200,
      body: [{ code: 'reports', route: 'reports', bundleUrl: SAMPLE_PLUGIN_V1_BUNDLE_URL }],
    });
  });

  it('exits non-zero with a wrong key, showing the status and the body but never the key', async () => {
    // Prepare
    const wrongKey = 'wrong-key-4b1d9e';
    const file = bundle('reports.wrong.js');

    // Act
    const deployed = await deploy(wrongKey, file);

    // Assess
    expect(deployed.code).toBe(1);
    expect(deployed.stdout).toBe('');
    expect(deployed.stderr).toContain(`PUT ${base}/v1/plugins/reports -> HTTP 401`);
    expect(deployed.stderr).toContain(
      '{"state":"ERROR","code":"TOKEN_INVALID","message":"The provided token cannot be verified"}',
    );
    expect(`${deployed.stdout}${deployed.stderr}`).not.toContain(wrongKey);
    expect(deployed.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('GET /v1/plugins over HTTP', () => {
  it('answers a browser preflight with 200 and the spec headers', async () => {
    // Act
    const response = await browserPreflight(`${base}/v1/plugins`);

    // Assess
    expect(response.status).toBe(200);
    expect(specCorsOf(response.headers)).toEqual(SPEC_CORS);
  });

  it('refuses a request without a token with the spec error body and the CORS header', async () => {
    // Act
    const response = await fetch(`${base}/v1/plugins`, {
      headers: { Origin: 'https://portal.example.com' },
    });

    // Assess
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toEqual({
      state: 'ERROR',
      code: 'TOKEN_INVALID',
      message: 'Authorization header is invalid. Did you forget to add "Bearer "?',
    });
  });
});
