import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKeySet, KeySetUnavailableError } from '../../../../shared/auth/key-set';
import { createMetrics, LOCAL_FUNCTION } from '../../../../shared/metrics';
import { keysFor } from '../../../support/local-keys';
import { collectingLogger } from '../../middleware/fixtures';
import { parseEmf } from '../emf';

/** A key-set URL that fails at once, without any network: a protocol it never fetches. */
const UNFETCHABLE = new URL('file:///etc/jwks.json');
const METRICS = createMetrics({
  namespace: 'PortalServiceApi',
  service: 'svc-test',
  ...LOCAL_FUNCTION,
});

describe('createKeySet: a failed fetch is the KeySetFailures metric', () => {
  it('writes "key set fetch failed" as a valid EMF line counting KeySetFailures = 1', async () => {
    // Prepare
    const log = collectingLogger();
    const keySet = createKeySet({ url: UNFETCHABLE, logger: log.logger, metrics: METRICS });

    // Act
    await expect(keysFor(keySet, 'RS256', 'k1')).rejects.toBeInstanceOf(KeySetUnavailableError);

    // Assess
    expect(log.lines).toHaveLength(1);
    const line = parseEmf(log.lines[0]!);
    const { time, _aws: aws, ...members } = line as { time: string; _aws: unknown };
    expect(members).toEqual({
      level: 'error',
      message: 'key set fetch failed',
      errorName: 'TypeError',
      errorCode: 'ERR_KEY_SET_PROTOCOL',
      servingStale: false,
      Service: 'svc-test',
      KeySetFailures: 1,
    });
    expect(aws).toEqual({
      Timestamp: Date.parse(time),
      CloudWatchMetrics: [
        {
          Namespace: 'PortalServiceApi',
          Dimensions: [['Service']],
          Metrics: [{ Name: 'KeySetFailures', Unit: 'Count' }],
        },
      ],
    });
  });

  it('counts each failed fetch once, and nothing for a lookup refused during the back-off', async () => {
    // Prepare
    const log = collectingLogger();
    let clock = 0;
    const keySet = createKeySet({
      url: UNFETCHABLE,
      logger: log.logger,
      metrics: METRICS,
      now: () => clock,
    });

    // Act: a failed fetch, a lookup within the back-off, a lookup after it (a second fetch).
    await expect(keysFor(keySet, 'RS256', 'k1')).rejects.toBeInstanceOf(KeySetUnavailableError);
    clock = 1_000;
    await expect(keysFor(keySet, 'RS256', 'k1')).rejects.toBeInstanceOf(KeySetUnavailableError);
    clock = 10_000;
    await expect(keysFor(keySet, 'RS256', 'k1')).rejects.toBeInstanceOf(KeySetUnavailableError);

    // Assess
    expect(
      log.lines.map(parseEmf).map(({ message, KeySetFailures }) => ({ message, KeySetFailures })),
    ).toEqual([
      { message: 'key set fetch failed', KeySetFailures: 1 },
      { message: 'key set fetch failed', KeySetFailures: 1 },
    ]);
  });

  it('writes the line without metrics when it is given none', async () => {
    // Prepare
    const log = collectingLogger();
    const keySet = createKeySet({ url: UNFETCHABLE, logger: log.logger });

    // Act
    await expect(keysFor(keySet, 'RS256', 'k1')).rejects.toBeInstanceOf(KeySetUnavailableError);

    // Assess
    expect(log.untimed()).toEqual([
      {
        level: 'error',
        message: 'key set fetch failed',
        errorName: 'TypeError',
        errorCode: 'ERR_KEY_SET_PROTOCOL',
        servingStale: false,
      },
    ]);
  });
});

describe('createKeySet: the prefetch of initialisation is a head start, never a verdict', () => {
  it('logs a failed prefetch as one info line, with no metric, and sets no back-off', async () => {
    // Prepare
    const log = collectingLogger();
    const keySet = createKeySet({ url: UNFETCHABLE, logger: log.logger, metrics: METRICS });

    // Act: the prefetch fails; a lookup right after it fetches again (no back-off)
    await keySet.prefetch();
    await expect(keysFor(keySet, 'RS256', 'k1')).rejects.toBeInstanceOf(KeySetUnavailableError);

    // Assess
    const lines = log.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(
      lines.map(({ level, message, KeySetFailures }) => ({ level, message, KeySetFailures })),
    ).toEqual([
      { level: 'info', message: 'key set prefetch failed', KeySetFailures: undefined },
      { level: 'error', message: 'key set fetch failed', KeySetFailures: 1 },
    ]);
  });

  it('lets a lookup waiting for a prefetch that fails fetch once more itself, and answers from that fetch', async () => {
    // Prepare: a host whose first answer fails and whose later ones serve the set
    const log = collectingLogger();
    const publicKey = { kty: 'EC', crv: 'P-256', kid: 'k1', use: 'sig', alg: 'ES256',
      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' }; // prettier-ignore
    let calls = 0;
    const server = createServer((_request, response) => {
      calls += 1;
      if (calls === 1) {
        response.writeHead(500).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ keys: [publicKey] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const keySet = createKeySet({
        url: new URL(`http://127.0.0.1:${port}/jwks.json`),
        logger: log.logger,
        metrics: METRICS,
      });

      // Act: the lookup starts while the prefetch is in flight
      const prefetched = keySet.prefetch();
      const keys = await keysFor(keySet, 'ES256', 'k1');
      await prefetched;

      // Assess
      expect(keys).toHaveLength(1);
      expect(calls).toBe(2);
      const messages = log.lines.map((line) => (JSON.parse(line) as { message: string }).message);
      expect(messages).toEqual(['key set prefetch failed', 'key set loaded']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
