/**
 * tools/generators/settings-check.ts: every setting of the registry read for a stage and region,
 * a plain spelling of a stage-bound one never reaching staging or production, and what packaging
 * warns of.
 */
import { SETTINGS } from '../../../tools/generators/registry';
import { readSettings, type SettingsSource } from '../../../tools/generators/settings-check';
import { stageRulesOf } from '../../../tools/generators/stages';
import { readReleaseConfig } from '../../../tools/release/regions';

const { stages } = readReleaseConfig();
/** What every portal stage needs in eu-west-1 besides the setting under test. */
const NEEDS = (stage: string): Record<string, string> => ({
  [`JWK_URL_EU_${stage.toUpperCase()}`]: 'https://keys.example/jwks.json',
  [`JWT_ISSUER_EU_${stage.toUpperCase()}`]: 'https://portal.example',
  [`DATABASE_SECRET_ARN_${stage.toUpperCase()}`]:
    'arn:aws:secretsmanager:eu-west-1:123456789012:secret:db-AbC123',
  [`ALARM_TOPIC_ARN_${stage.toUpperCase()}`]: 'arn:aws:sns:eu-west-1:123456789012:alarms',
});

const sourceFor = (stage: string, env: Readonly<Record<string, string>>): SettingsSource => ({
  scope: { stage, region: 'eu-west-1', portal: stage !== 'dev' },
  rules: stageRulesOf(stages, stage),
  read: (variable) => env[variable] ?? '',
  ...(stage === 'dev'
    ? {}
    : {
        portalVariables: {
          portalRegion: 'EU',
          keySet: `JWK_URL_EU_${stage.toUpperCase()}`,
          issuer: `JWT_ISSUER_EU_${stage.toUpperCase()}`,
        },
      }),
});

const STAGE_BOUND = SETTINGS.filter(({ stageBound }) => stageBound).map(({ name }) => name);

describe('readSettings', () => {
  it('finds nothing to refuse in what staging and production need', () => {
    for (const stage of ['staging', 'production']) {
      expect(readSettings(sourceFor(stage, NEEDS(stage))).problems).toEqual([]);
    }
  });

  it.each(
    ['staging', 'production'].flatMap((stage) =>
      STAGE_BOUND.flatMap((name) => [
        [stage, name, name],
        [stage, name, `${name}_EU_WEST_1`],
      ]),
    ),
  )('never lets %s read %s from %s, and says so naming it', (stage, name, variable) => {
    // Act
    const read = readSettings(
      sourceFor(stage, { ...NEEDS(stage), [variable]: 'from-another-stage' }),
    );

    // Assess
    expect(
      read.problems.filter((line) => line.startsWith(`${variable} is set, but stage`)),
    ).toHaveLength(1);
    expect(read.values[name]?.value).not.toBe('from-another-stage');
  });

  it('reads a setting that is not stage-bound from its plain name, and dev every setting so', () => {
    expect(
      readSettings(sourceFor('production', { ...NEEDS('production'), LOG_LEVEL: 'warn' })).values
        .LOG_LEVEL,
    ).toEqual({
      variable: 'LOG_LEVEL',
      value: 'warn',
      source: 'variable',
    });
    const dev = readSettings(
      sourceFor('dev', { JWKS_URL: 'https://keys.example', JWT_AUDIENCE: 'a' }),
    );
    expect(dev.problems).toEqual([]);
    expect(dev.values.JWT_AUDIENCE?.value).toBe('a');
  });

  it('names where a value came from: a variable, the stage’s table, or the registry', () => {
    const { values } = readSettings(sourceFor('production', NEEDS('production')));
    expect(values.API_THROTTLE_RATE).toEqual({
      variable: 'custom.stages.production.settings.API_THROTTLE_RATE',
      value: '200',
      source: 'stage',
    });
    expect(values.LOG_LEVEL).toEqual({ variable: 'LOG_LEVEL', value: 'info', source: 'registry' });
  });

  it('refuses every bad value at once, as its type says', () => {
    const read = readSettings(
      sourceFor('production', {
        ...NEEDS('production'),
        LOG_LEVEL: 'loud',
        DB_POOL_MAX_PRODUCTION: '50',
        TRACING_PRODUCTION: 'maybe',
      }),
    );
    expect(read.problems).toEqual([
      'LOG_LEVEL is "loud": expected debug, info, warn, error',
      'DB_POOL_MAX_PRODUCTION is "50": expected a whole number from 1 to 20',
      'TRACING_PRODUCTION is "maybe": expected true or false',
    ]);
  });

  it('warns of production packaged without alarms by its own name, and of staging alarms notifying nobody', () => {
    const production = readSettings(
      sourceFor('production', { ...NEEDS('production'), ALARMS_PRODUCTION: 'false' }),
    );
    expect(production.problems).toEqual([]);
    expect(production.warnings).toEqual([
      'stage "production" in eu-west-1 is packaged without alarms (ALARMS_PRODUCTION=false)',
    ]);
    const staging = readSettings(
      sourceFor('staging', { ...NEEDS('staging'), ALARM_TOPIC_ARN_STAGING: '' }),
    );
    expect(staging.warnings).toEqual([
      'stage "staging"\'s alarms in eu-west-1 notify nobody: ALARM_TOPIC_ARN_STAGING_EU_WEST_1 (or ALARM_TOPIC_ARN_STAGING) is not set',
    ]);
  });
});
