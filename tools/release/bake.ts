/**
 * The bake of `npm run deploy` (docs/deployment.md, "Bake time"): after a region is deployed
 * and before the next one is, the stage's CloudWatch alarms in that region (named
 * `<service>-<stage>-…`, tools/generators/operations.ts) are read every POLL_SECONDS for the bake time;
 * the first one in ALARM ends it, and the release stops there. Those clients can drive (4xx,
 * throttles, the web ACL's blocks: CLIENT_DRIVEN_ALARMS) page but are not read here.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { isClientDriven } from '../generators/operations';
import { clientConfig, describeError } from './preflight-common';
import { settingEntry } from '../generators/registry';
import { stageDefaultName, stageRulesOf } from '../generators/stages';
import { upperSnake } from '../generators/variables';
import { readReleaseConfig, ReleaseUsageError } from './regions';

type Env = Readonly<Record<string, string | undefined>>;

const MAX_BAKE_MINUTES = 24 * 60;
/** How often the alarms are read during a bake. */
const POLL_SECONDS = 30;

/**
 * The bake in minutes: --bake-minutes, else RELEASE_BAKE_MINUTES_<STAGE>, else
 * RELEASE_BAKE_MINUTES, else the stage's default (custom.stages), else none. A form with the
 * region is refused: the bake is one per stage.
 */
export const bakeMinutes = (
  stage: string,
  option: string | undefined,
  env: Env,
  stages: unknown = readReleaseConfig().stages,
): number => {
  const staged = `RELEASE_BAKE_MINUTES_${upperSnake(stage)}`;
  const regional = Object.keys(env).find(
    (variable) => variable.startsWith(`${staged}_`) && (env[variable] ?? '').trim() !== '',
  );
  if (regional !== undefined) {
    throw new ReleaseUsageError(
      `${regional} is set, but the bake is one per stage, between every two regions: set ${staged} instead`,
    );
  }
  const rules = stageRulesOf(stages, stage);
  const [name, raw] =
    option !== undefined
      ? ['--bake-minutes', option.trim()]
      : ([staged, 'RELEASE_BAKE_MINUTES']
          .map((variable) => [variable, (env[variable] ?? '').trim()] as const)
          .find(([, value]) => value !== '') ?? [
          stageDefaultName(rules, 'RELEASE_BAKE_MINUTES'),
          rules.settings.RELEASE_BAKE_MINUTES ?? settingEntry('RELEASE_BAKE_MINUTES').default,
        ]);
  const minutes = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || minutes > MAX_BAKE_MINUTES) {
    throw new ReleaseUsageError(
      `${name} is "${raw}": expected minutes from 0 to ${MAX_BAKE_MINUTES} (0.5 is 30 s)`,
    );
  }
  return minutes;
};

export interface FiringAlarm {
  readonly name: string;
  readonly reason: string;
}

export type BakeResult =
  | { readonly ok: true; readonly watched: number }
  | { readonly ok: false; readonly firing: readonly FiringAlarm[] }
  | { readonly ok: false; readonly error: string };

/** The stage's alarms in the region but those clients can drive: how many, and those in ALARM. */
const readAlarms = async (client: CloudWatchClient, prefix: string) => {
  let watched = 0;
  const firing: FiringAlarm[] = [];
  let NextToken: string | undefined;
  do {
    const page = await client.send(
      new DescribeAlarmsCommand({
        AlarmNamePrefix: prefix,
        AlarmTypes: ['MetricAlarm', 'CompositeAlarm'],
        NextToken,
      }),
    );
    for (const alarm of [...(page.MetricAlarms ?? []), ...(page.CompositeAlarms ?? [])]) {
      if (isClientDriven(alarm.AlarmName ?? '', prefix)) continue;
      watched += 1;
      if (alarm.StateValue === 'ALARM') {
        firing.push({ name: alarm.AlarmName ?? '?', reason: alarm.StateReason ?? '' });
      }
    }
    NextToken = page.NextToken;
  } while (NextToken);
  return { watched, firing };
};

/**
 * Watches the region's alarms of the stage for `minutes`: ok when none went to ALARM, else
 * those that did; an error reading them ends the bake too (a bake that cannot see is none).
 */
export const bake = async ({
  service,
  stage,
  region,
  minutes,
}: {
  readonly service: string;
  readonly stage: string;
  readonly region: string;
  readonly minutes: number;
}): Promise<BakeResult> => {
  const client = new CloudWatchClient(clientConfig(region));
  const ends = Date.now() + minutes * 60_000;
  try {
    for (;;) {
      const { watched, firing } = await readAlarms(client, `${service}-${stage}-`);
      if (firing.length > 0) return { ok: false, firing };
      const left = ends - Date.now();
      if (left <= 0) return { ok: true, watched };
      await sleep(Math.min(left, POLL_SECONDS * 1000));
    }
  } catch (error) {
    return { ok: false, error: describeError(error) };
  } finally {
    client.destroy();
  }
};
