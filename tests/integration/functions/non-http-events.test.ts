/**
 * Events that are not API Gateway requests, given to a deployed handler (orders-per-day): each is
 * answered without throwing, with one `non-HTTP event ignored` line and no access-log line.
 */
import { jest } from '@jest/globals';
import { closeContainerDependencies } from '../../../shared/runtime';
import { lambdaContext, scheduledEvent } from '../../support/events';

// The line is at level info; tests/support/env.ts quiets the container to errors. The handler
// module builds its container when loaded, so it is loaded once the level is set.
const quietLevel = process.env.LOG_LEVEL;
process.env.LOG_LEVEL = 'info';
const { handler: ordersDayHandler } = await import('../../../functions/orders-per-day');

type Invoke = (event: unknown, context: unknown) => Promise<unknown>;

afterAll(async () => {
  process.env.LOG_LEVEL = quietLevel;
  await closeContainerDependencies();
});

/** The JSON lines of `output` whose message is one of `messages`. */
const linesAbout = (output: string, messages: readonly string[]): Record<string, unknown>[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{"level":'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter(({ message }) => typeof message === 'string' && messages.includes(message));

const ABOUT_THE_EVENT = ['non-HTTP event ignored', 'request'];

describe('a handler given a non-HTTP event', () => {
  it.each([
    ['{}', () => ({}), 'empty'],
    ['a scheduled event', scheduledEvent, 'scheduled'],
    ['a warm-up ping', () => ({ source: 'serverless-plugin-warmup' }), 'warm-up'],
  ])('answers %s with nothing and logs one line', async (_name, event, kind) => {
    // Prepare
    const written: string[] = [];
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const context = lambdaContext();

    // Act
    let result: unknown;
    try {
      result = await (ordersDayHandler as Invoke)(event(), context);
    } finally {
      write.mockRestore();
    }

    // Assess
    expect(result).toBeUndefined();
    expect(linesAbout(written.join(''), ABOUT_THE_EVENT)).toEqual([
      {
        level: 'info',
        message: 'non-HTTP event ignored',
        time: expect.any(String) as unknown,
        kind,
        awsRequestId: context.awsRequestId,
      },
    ]);
  });
});
