/**
 * The release alarm's own arithmetic (tools/generators/release-alarms.ts) over synthetic
 * per-minute datapoints, as CloudWatch's sliding window sums them (tests/support/alarm-math.ts):
 * a new version failing 3 of 5 requests spread over 3 minutes trips it, whichever minutes they
 * fall in, and a version that fails rarely or not at all does not.
 */
import type { Template } from '../../../tools/generators/cloudformation';
import { releaseAlarms } from '../../../tools/generators/release-alarms';
import { alarmStates, evaluate, type AlarmProperties } from '../../support/alarm-math';

const template: Template = {
  Resources: {
    FnLambdaFunction: {
      Type: 'AWS::Lambda::Function',
      Properties: { FunctionName: 'portal-production-fn' },
    },
    FnLambdaVersionAbc: {
      Type: 'AWS::Lambda::Version',
      Properties: { FunctionName: { Ref: 'FnLambdaFunction' } },
    },
  },
};

const alarm = (): AlarmProperties => {
  const [, resource] = releaseAlarms(template, ['FnLambdaFunction'], {
    name: 'portal-production',
    namespace: 'Portal',
    releaseErrors: 3,
    fiveXxRate: 0.05,
    alias: 'live',
    common: {},
    description: (fn) => fn,
  }).FnLambdaFunction!;
  return resource.Properties as unknown as AlarmProperties;
};

/** A minute of the new version: its invocations, crashes and 5xx answers. */
const minute = (invocations: number, errors = 0, answers5xx = 0) => ({
  invocations,
  errors,
  answers5xx,
});

describe('the release alarm', () => {
  it('fires when 3 of 5 requests fail spread over 3 minutes, one a minute', () => {
    const states = alarmStates(alarm(), [
      minute(1),
      minute(1, 1),
      minute(1, 0, 1),
      minute(1, 1),
      {},
      {},
    ]);
    expect(states).toEqual([false, false, false, true, false, false]);
  });

  it('fires on 3 failures in the last three minutes whichever minutes hold them', () => {
    for (const failing of [
      [0, 1, 2],
      [0, 0, 2],
      [0, 2, 2],
    ]) {
      const minutes = [0, 1, 2].map((i) => minute(2, failing.filter((f) => f === i).length));
      expect(alarmStates(alarm(), minutes).at(-1)).toBe(true);
    }
  });

  it('stays quiet on 2 failures in any three minutes, and on minutes without requests', () => {
    expect(
      alarmStates(alarm(), [minute(5, 1), minute(5), minute(5), minute(5, 1), {}, {}]),
    ).toEqual([false, false, false, false, false, false]);
  });

  it('fires on more than 5 % failed from 20 requests in the window, below 3 failures it would not', () => {
    // 2 of 30 failed: 6.7 % of enough requests.
    expect(alarmStates(alarm(), [minute(10, 1), minute(10), minute(10, 0, 1)]).at(-1)).toBe(true);
    // 2 of 19: too few requests to judge a rate, too few failures to count.
    expect(alarmStates(alarm(), [minute(9, 1), minute(5), minute(5, 0, 1)]).at(-1)).toBe(false);
  });
});

describe('the metric-math evaluator', () => {
  it('follows CloudWatch: IF on a comparison, FILL for a missing datapoint, * before +', () => {
    expect(evaluate('IF(a >= 3, 1, 0) + FILL(b, 0) * 2', { a: 3, b: undefined })).toBe(1);
    expect(evaluate('IF(a >= 3, 1, 0) + FILL(b, 0) * 2', { a: 2, b: 4 })).toBe(8);
    expect(evaluate('a + b', { a: 1, b: undefined })).toBeUndefined();
    expect(() => evaluate('c', { a: 1 })).toThrow('c is no metric of the alarm');
  });
});
