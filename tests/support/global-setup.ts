/**
 * Once per test run: a real local key-set server for a fresh issuer key, and a real database —
 * the PostgreSQL at TEST_DATABASE_URL when set, otherwise the embedded PGlite — migrated and
 * seeded. Test workers find them through the environment.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack, type LocalStack } from '../../tools/local/stack';

declare global {
  var __portalStack: Pick<LocalStack, 'close'> | undefined;
}

export default async function globalSetup(): Promise<void> {
  const keyFile = join(mkdtempSync(join(tmpdir(), 'portal-test-')), 'issuer.jwk.json');
  const databaseUrl = process.env.TEST_DATABASE_URL?.trim() || undefined;
  const stack = await startLocalStack({ databaseUrl, keyFile, seed: true });
  globalThis.__portalStack = stack;
  Object.assign(process.env, stack.env, {
    TEST_ISSUER_KEY_FILE: keyFile,
    TEST_DATABASE_KIND: stack.embedded ? 'pglite' : 'postgresql',
  });
}
