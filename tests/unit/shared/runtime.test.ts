import { loadConfig } from '../../../shared/config';
import { createLogger } from '../../../shared/logger';
import { createDependencies } from '../../../shared/runtime';

/**
 * A container whose key set and database are both unreachable on this machine (port 1 of the
 * loopback refuses at once): its initialisation's two failures.
 */
const failingContainer = () => {
  const lines: string[] = [];
  const deps = createDependencies(
    loadConfig({
      JWKS_URL: 'http://127.0.0.1:1/.well-known/jwks.json',
      DATABASE_URL: 'postgres://reports:secret-password@127.0.0.1:1/reports',
      DB_CONNECT_TIMEOUT_SECONDS: '2',
      METRICS_NAMESPACE: 'Portal/Test',
      METRICS_SERVICE: 'portal-service-api-test',
    }),
    createLogger('debug', (line) => lines.push(line)),
  );
  return { deps, lines };
};

describe('createDependencies: the failures of initialisation count no metric', () => {
  it('writes the failed key-set prefetch and the failed warm-up as info lines by name and code, the pool replaced as a warn line, with no metric', async () => {
    // Prepare
    const { deps, lines } = failingContainer();

    try {
      // Act / Assess
      await deps.ready;
      const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      const byMessage = new Map(parsed.map((line) => [line.message as string, line] as const));
      expect([...byMessage.keys()].sort()).toEqual([
        'database unreachable: no connection could be made; pool replaced',
        'database warm-up failed',
        'key set prefetch failed',
      ]);
      expect(
        byMessage.get('database unreachable: no connection could be made; pool replaced'),
      ).toEqual({
        level: 'warn',
        message: 'database unreachable: no connection could be made; pool replaced',
        time: expect.any(String) as unknown,
        errorCode: 'ECONNREFUSED',
        path: 'direct',
      });
      byMessage.delete('database unreachable: no connection could be made; pool replaced');
      for (const message of byMessage.keys()) {
        expect(byMessage.get(message)).toEqual({
          level: 'info',
          message,
          time: expect.any(String) as unknown,
          errorName: expect.any(String) as unknown,
          errorCode: 'ECONNREFUSED',
        });
      }
      expect(lines.join('\n')).not.toMatch(/secret-password|reports:|\n\s+at |_aws/);
    } finally {
      await deps.close();
    }
  });
});
