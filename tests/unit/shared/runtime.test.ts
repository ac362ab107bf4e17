import { loadConfig } from '../../../shared/config';
import { createLogger } from '../../../shared/logger';
import { createDependencies } from '../../../shared/runtime';
import { parseEmf } from './emf';

/**
 * A container whose key set and database are both unreachable on this machine (port 1 of the
 * loopback refuses at once): its initialisation's two background failures.
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

describe('createDependencies: the background failures are metrics', () => {
  it('writes the failed key-set fetch and the failed warm-up as valid EMF lines counting 1', async () => {
    // Prepare
    const { deps, lines } = failingContainer();

    try {
      // Act
      await deps.ready;

      // Assess
      const byMessage = new Map(
        lines.map(parseEmf).map((line) => [line.message as string, line] as const),
      );
      expect([...byMessage.keys()].sort()).toEqual([
        'database warm-up failed',
        'key set fetch failed',
      ]);
      expect(byMessage.get('key set fetch failed')).toMatchObject({
        level: 'error',
        errorCode: 'ECONNREFUSED',
        Service: 'portal-service-api-test',
        KeySetFailures: 1,
        _aws: {
          CloudWatchMetrics: [
            {
              Namespace: 'Portal/Test',
              Dimensions: [['Service']],
              Metrics: [{ Name: 'KeySetFailures', Unit: 'Count' }],
            },
          ],
        },
      });
      expect(byMessage.get('database warm-up failed')).toMatchObject({
        level: 'warn',
        errorCode: 'ECONNREFUSED',
        Service: 'portal-service-api-test',
        DatabaseErrors: 1,
        _aws: {
          CloudWatchMetrics: [
            {
              Namespace: 'Portal/Test',
              Dimensions: [['Service']],
              Metrics: [{ Name: 'DatabaseErrors', Unit: 'Count' }],
            },
          ],
        },
      });
      expect(lines.join('\n')).not.toMatch(/secret-password|reports:|\n\s+at /);
    } finally {
      await deps.close();
    }
  });
});
