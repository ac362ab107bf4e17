/**
 * The mutation run's setup (JEST_PROJECTS=mutation): its suites need the local issuer's key
 * and key set but no database, and Stryker runs this once per mutant.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_ISSUER, loadOrCreateIssuer, serveKeySet } from '../../tools/local/issuer';

export default async function globalSetupKeys(): Promise<void> {
  const keyFile = join(mkdtempSync(join(tmpdir(), 'portal-test-')), 'issuer.jwk.json');
  const issuer = await loadOrCreateIssuer(keyFile);
  const server = await serveKeySet(() => issuer.publicKeySet);
  globalThis.__portalStack = { close: server.close };
  Object.assign(process.env, {
    JWKS_URL: server.url,
    JWT_ISSUER: LOCAL_ISSUER,
    TEST_ISSUER_KEY_FILE: keyFile,
  });
}
