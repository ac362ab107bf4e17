import fc from 'fast-check';
import {
  createLogger,
  describeError,
  isoTimestamp,
  type LogFields,
  type MetricDirectives,
} from '../../../shared/logger';
import { emfProblems } from './emf';

/** A logger at `minimum` whose lines are kept, on a fixed clock. */
const collecting = (minimum: Parameters<typeof createLogger>[0], at = 1_719_783_000_123) => {
  const lines: string[] = [];
  const logger = createLogger(
    minimum,
    (line) => lines.push(line),
    () => at,
  );
  return { logger, lines };
};

describe('createLogger', () => {
  it('writes one JSON line: level, message, time, then the fields in their order', () => {
    // Prepare
    const { logger, lines } = collecting('info');

    // Act / Assess
    logger.log('info', 'request', { requestId: 'r-1', status: 200, code: undefined, cold: true });
    expect(lines).toEqual([
      '{"level":"info","message":"request","time":"2024-06-30T21:30:00.123Z","requestId":"r-1","status":200,"cold":true}',
    ]);
  });

  it('writes a line without fields, or with only undefined ones, as level, message and time', () => {
    // Prepare
    const { logger, lines } = collecting('debug');

    // Act
    logger.log('warn', 'a "quoted"\nmessage');
    logger.log('debug', 'nothing', { code: undefined });

    // Assess
    expect(lines).toEqual([
      '{"level":"warn","message":"a \\"quoted\\"\\nmessage","time":"2024-06-30T21:30:00.123Z"}',
      '{"level":"debug","message":"nothing","time":"2024-06-30T21:30:00.123Z"}',
    ]);
  });

  it('drops lines below its minimum level', () => {
    // Prepare
    const { logger, lines } = collecting('warn');

    // Act
    logger.log('debug', 'a');
    logger.log('info', 'b');
    logger.log('warn', 'c');
    logger.log('error', 'd');

    // Assess
    expect(lines.map((line) => (JSON.parse(line) as { message: string }).message)).toEqual([
      'c',
      'd',
    ]);
  });

  it('writes exactly what JSON.stringify of the merged entry writes, for any fields', () => {
    // Fields named like the line's own members, array indices and JSON's special characters.
    const key = fc.oneof(
      fc.constantFrom('level', 'message', 'time', '0', '7', '01', 'requestId', '__proto__', 'é"\n'),
      fc.string({ maxLength: 6 }),
    );
    const value = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.double(),
      fc.boolean(),
      fc.constant(undefined),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('debug', 'info', 'warn', 'error' as const),
        fc.string({ maxLength: 10 }),
        fc.dictionary(key, value),
        fc.integer({ min: -8.64e15, max: 8.64e15 }),
        (level, message, fields: LogFields, at) => {
          const { logger, lines } = collecting('debug', at);
          logger.log(level, message, fields);
          const time = new Date(at).toISOString();
          expect(lines).toEqual([JSON.stringify({ level, message, time, ...fields })]);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('createLogger with metrics (CloudWatch embedded metric format)', () => {
  const DIRECTIVES: MetricDirectives = [
    {
      Namespace: 'PortalServiceApi',
      Dimensions: [['Service']],
      Metrics: [{ Name: 'Requests', Unit: 'Count' }],
    },
  ];
  const AWS = `"_aws":{"Timestamp":1719783000123,"CloudWatchMetrics":${JSON.stringify(DIRECTIVES)}}`;

  it('ends the line with the _aws member: the line instant as Timestamp, then the directives', () => {
    // Prepare
    const { logger, lines } = collecting('info');

    // Act
    logger.log('info', 'request', { status: 200, Service: 's', Requests: 1 }, DIRECTIVES);
    logger.log('info', 'bare', {}, DIRECTIVES);

    // Assess
    expect(lines).toEqual([
      `{"level":"info","message":"request","time":"2024-06-30T21:30:00.123Z","status":200,"Service":"s","Requests":1,${AWS}}`,
      `{"level":"info","message":"bare","time":"2024-06-30T21:30:00.123Z",${AWS}}`,
    ]);
    expect(emfProblems(lines[0]!)).toEqual([]);
  });

  it('writes whole milliseconds as the Timestamp, the same instant as time', () => {
    // Prepare
    const { logger, lines } = collecting('info', 1_719_783_000_123.75);

    // Act / Assess
    logger.log('info', 'request', { Service: 's', Requests: 1 }, DIRECTIVES);
    const line = JSON.parse(lines[0]!) as { time: string; _aws: { Timestamp: number } };
    expect(line._aws.Timestamp).toBe(1_719_783_000_123);
    expect(line._aws.Timestamp).toBe(Date.parse(line.time));
  });

  it('never lets a field named _aws replace the metrics', () => {
    // Prepare
    const { logger, lines } = collecting('info');

    // Act / Assess
    logger.log('info', 'request', { _aws: 'forged', Service: 's', Requests: 1 }, DIRECTIVES);
    expect(lines).toEqual([
      `{"level":"info","message":"request","time":"2024-06-30T21:30:00.123Z","Service":"s","Requests":1,${AWS}}`,
    ]);
  });

  it('filters a metrics line by level as any other', () => {
    // Prepare
    const { logger, lines } = collecting('warn');

    // Act / Assess
    logger.log('info', 'request', { Service: 's', Requests: 1 }, DIRECTIVES);
    expect(lines).toEqual([]);
  });

  it('writes what JSON.stringify of the merged entry and its _aws member writes, for any fields', () => {
    const key = fc.oneof(
      fc.constantFrom('level', 'message', 'time', '_aws', '0', '7', 'Requests', '__proto__', 'é"'),
      fc.string({ maxLength: 6 }),
    );
    const value = fc.oneof(fc.string({ maxLength: 8 }), fc.double(), fc.boolean());
    fc.assert(
      fc.property(
        fc.string({ maxLength: 10 }),
        fc.dictionary(key, value),
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        (message, fields: LogFields, at) => {
          const { logger, lines } = collecting('debug', at);
          logger.log('info', message, fields, DIRECTIVES);
          const time = new Date(at).toISOString();
          const merged: Record<string, unknown> = { level: 'info', message, time, ...fields };
          const { _aws: _forged, ...entry } = merged;
          const aws = { Timestamp: at, CloudWatchMetrics: DIRECTIVES };
          expect(lines).toEqual([JSON.stringify({ ...entry, _aws: aws })]);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('isoTimestamp', () => {
  it('is new Date(ms).toISOString() for any instant a Date can hold', () => {
    const instant = fc.oneof(
      fc.integer({ min: -8.64e15, max: 8.64e15 }),
      fc.integer({ min: 0, max: 4_102_444_800_000 }), // 1970–2100
      fc.double({ min: -8.64e15, max: 8.64e15, noNaN: true }),
      fc.constantFrom(0, -0, -1, 8.64e15, -8.64e15, 86_399_999, -86_400_001),
    );
    fc.assert(
      fc.property(instant, (ms) => {
        expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 5000 },
    );
  });

  it.each([Number.NaN, 8.64e15 + 1, -8.64e15 - 1, Infinity])(
    'throws as Date does for %p, which no Date can hold',
    (ms) => {
      expect(() => isoTimestamp(ms)).toThrow(RangeError);
    },
  );
});

describe('describeError', () => {
  it('keeps the class name and the stable code of an error, never its message', () => {
    const error = Object.assign(new TypeError('secret SQL text'), { code: 'ERR_X' });
    expect(describeError(error)).toEqual({ errorName: 'TypeError', errorCode: 'ERR_X' });
  });

  it('names what was thrown when it is no object', () => {
    expect(describeError('text')).toEqual({ errorName: 'string' });
  });
});
