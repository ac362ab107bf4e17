import { createKeySet, KeySetUnavailableError } from '../../../../shared/auth/key-set';
import { createMetrics } from '../../../../shared/metrics';
import { collectingLogger } from '../../middleware/fixtures';
import { parseEmf } from '../emf';

/** A key-set URL that fails at once, without any network: a protocol it never fetches. */
const UNFETCHABLE = new URL('file:///etc/jwks.json');
const METRICS = createMetrics({ namespace: 'PortalServiceApi', service: 'svc-test' });

describe('createKeySet: a failed fetch is the KeySetFailures metric', () => {
  it('writes "key set fetch failed" as a valid EMF line counting KeySetFailures = 1', async () => {
    // Prepare
    const log = collectingLogger();
    const keySet = createKeySet({ url: UNFETCHABLE, logger: log.logger, metrics: METRICS });

    // Act
    await keySet.prefetch();

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
    await expect(keySet.keysFor('RS256', 'k1')).rejects.toBeInstanceOf(KeySetUnavailableError);
    clock = 1_000;
    await expect(keySet.keysFor('RS256', 'k1')).rejects.toBeInstanceOf(KeySetUnavailableError);
    clock = 10_000;
    await expect(keySet.keysFor('RS256', 'k1')).rejects.toBeInstanceOf(KeySetUnavailableError);

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
    await keySet.prefetch();

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
