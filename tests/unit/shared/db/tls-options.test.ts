/**
 * postgres.js's `ssl` option from DB_TLS for the database's host (shared/db/tls.ts,
 * tlsOptions), and that host as a DATABASE_URL gives it (shared/db/credentials.ts, urlHost).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tlsOptions } from '../../../../shared/db/tls';
import { urlHost } from '../../../../shared/db/credentials';

describe('tlsOptions', () => {
  it.each([undefined, { mode: 'disable' } as const])('is false for %j', (tls) => {
    expect(tlsOptions(tls, 'db.internal')).toBe(false);
  });

  it('encrypts without verifying for require', () => {
    expect(tlsOptions({ mode: 'require' }, 'db.internal')).toEqual({
      rejectUnauthorized: false,
    });
  });

  it("verifies a host name through SNI, against Node's built-in roots for DB_CA=node", () => {
    expect(
      tlsOptions({ mode: 'verify-full', ca: 'node' }, urlHost('postgres://u:p@db.internal:5432/x')),
    ).toEqual({
      rejectUnauthorized: true,
      servername: 'db.internal',
    });
  });

  it.each([
    ['postgres://10.0.0.5/x', '10.0.0.5'],
    ['postgres://[fd00::5]:5432/x', 'fd00::5'],
  ])('verifies an IP address (%s) as the host, without SNI', (url, host) => {
    expect(tlsOptions({ mode: 'verify-full', ca: 'node' }, urlHost(url))).toEqual({
      rejectUnauthorized: true,
      host,
      servername: undefined,
    });
  });

  it('loads a DB_CA file into a secure context', () => {
    // Arrange
    const dir = mkdtempSync(join(tmpdir(), 'portal-tls-options-'));
    try {
      execFileSync('openssl', [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
        '-keyout', join(dir, 'ca.key'), '-out', join(dir, 'ca.crt'), '-days', '1', '-subj', '/CN=ca',
      ], { stdio: 'ignore' }); // prettier-ignore

      // Act
      const options = tlsOptions(
        { mode: 'verify-full', ca: { file: join(dir, 'ca.crt') } },
        'db.internal',
      );

      // Assess
      expect(options).toMatchObject({ rejectUnauthorized: true, servername: 'db.internal' });
      expect(options && options.secureContext).toBeDefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
