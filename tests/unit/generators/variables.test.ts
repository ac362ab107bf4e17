/**
 * tools/generators/variables.ts: the variables a setting is read from, most specific first; a portal
 * stage reads a STAGE_BOUND setting only from names carrying the stage and refuses the others.
 */
import {
  isStageBound,
  regionalName,
  resolveSetting,
  settingHint,
  settingNames,
  STAGE_BOUND,
  stagedNames,
  unstagedMessage,
  unstagedNames,
  upperSnake,
  type Scope,
} from '../../../tools/generators/variables';

const PRODUCTION: Scope = { stage: 'production', region: 'eu-west-1', portal: true };
const STAGING: Scope = { stage: 'staging', region: 'eu-west-1', portal: true };
const DEV: Scope = { stage: 'dev', region: 'sa-east-1', portal: false };

/** A reader over `values`, '' for any variable not in it. */
const reader =
  (values: Readonly<Record<string, string>>) =>
  (variable: string): string =>
    values[variable] ?? '';

describe('names', () => {
  it('writes stage and region in upper snake case', () => {
    expect(upperSnake('ap-southeast-1')).toBe('AP_SOUTHEAST_1');
    expect(regionalName('VPC_SUBNET_IDS', 'eu-west-1')).toBe('VPC_SUBNET_IDS_EU_WEST_1');
    expect(stagedNames('DATABASE_SECRET_ARN', PRODUCTION)).toEqual([
      'DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1',
      'DATABASE_SECRET_ARN_PRODUCTION',
    ]);
    expect(unstagedNames('DATABASE_SECRET_ARN', PRODUCTION)).toEqual([
      'DATABASE_SECRET_ARN_EU_WEST_1',
      'DATABASE_SECRET_ARN',
    ]);
  });

  it('binds to the stage what names its resource or weakens its protection, in portal stages only', () => {
    expect(STAGE_BOUND).toEqual(
      expect.arrayContaining([
        ...[
          'DATABASE_URL',
          'DATABASE_SECRET_ARN',
          'DATABASE_SECRET_KMS_KEY_ARN',
          'DB_MAX_CONNECTIONS',
        ],
        ...['VPC_SUBNET_IDS', 'VPC_SECURITY_GROUP_IDS', 'DOMAIN_NAME', 'DOMAIN_CERTIFICATE_ARN'],
        ...['ALARMS', 'ALARM_TOPIC_ARN', 'ALARM_5XX_COUNT', 'TRACING', 'DB_TLS', 'DB_CA'],
        ...['JWT_AUDIENCE', 'LEGACY_PLATFORM_KEYS', 'LEGACY_PLATFORM_KEYS_SUNSET'],
        ...[
          'WAF',
          'WAF_RATE_LIMIT',
          'API_THROTTLE_RATE',
          'API_THROTTLE_BURST',
          'DEPLOYMENT_PREFERENCE',
        ],
      ]),
    );
    expect(STAGE_BOUND).not.toEqual(
      expect.arrayContaining(['LOG_LEVEL', 'RESERVED_CONCURRENCY', 'STACK_TAGS']),
    );
    for (const name of STAGE_BOUND) {
      expect({
        name,
        production: isStageBound(name, PRODUCTION),
        dev: isStageBound(name, DEV),
      }).toEqual({ name, production: true, dev: false });
    }
    expect(isStageBound('SECRETS_EXTENSION_LAYER_ARN', PRODUCTION)).toBe(false);
  });
});

describe('settingNames', () => {
  it('reads a portal stage’s own resource from the names carrying the stage only', () => {
    expect(settingNames('DOMAIN_NAME', STAGING)).toEqual([
      'DOMAIN_NAME_STAGING_EU_WEST_1',
      'DOMAIN_NAME_STAGING',
    ]);
  });

  it('reads any other setting from every name, most specific first', () => {
    expect(settingNames('SECRETS_EXTENSION_LAYER_ARN', PRODUCTION)).toEqual([
      'SECRETS_EXTENSION_LAYER_ARN_PRODUCTION_EU_WEST_1',
      'SECRETS_EXTENSION_LAYER_ARN_PRODUCTION',
      'SECRETS_EXTENSION_LAYER_ARN_EU_WEST_1',
      'SECRETS_EXTENSION_LAYER_ARN',
    ]);
    expect(settingNames('DATABASE_URL', DEV).join(' ')).toBe(
      'DATABASE_URL_DEV_SA_EAST_1 DATABASE_URL_DEV DATABASE_URL_SA_EAST_1 DATABASE_URL',
    );
  });
});

describe('settingHint', () => {
  it('names the most specific variable first, and the others in brackets', () => {
    expect(settingHint('DATABASE_SECRET_ARN', PRODUCTION)).toBe(
      'DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1 (or DATABASE_SECRET_ARN_PRODUCTION)',
    );
    expect(settingHint('DATABASE_SECRET_ARN', DEV)).toBe(
      'DATABASE_SECRET_ARN_DEV_SA_EAST_1 (or DATABASE_SECRET_ARN_DEV, DATABASE_SECRET_ARN_SA_EAST_1, DATABASE_SECRET_ARN)',
    );
  });
});

describe('resolveSetting', () => {
  /** Every name of `name` for PRODUCTION set, each to its own name. */
  const everyName = (name: string) =>
    Object.fromEntries(
      [...stagedNames(name, PRODUCTION), ...unstagedNames(name, PRODUCTION)].map((variable) => [
        variable,
        variable,
      ]),
    );

  it.each([
    ['DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1', []],
    ['DATABASE_SECRET_ARN_PRODUCTION', ['DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1']],
  ])('takes %s for a portal stage, the names before it unset', (expected, unset) => {
    const values = everyName('DATABASE_SECRET_ARN');
    for (const variable of [...unset, ...unstagedNames('DATABASE_SECRET_ARN', PRODUCTION)]) {
      values[variable] = '';
    }

    expect(resolveSetting('DATABASE_SECRET_ARN', PRODUCTION, reader(values))).toEqual({
      variable: expected,
      value: expected,
    });
  });

  it.each([
    ['DATABASE_URL_DEV_SA_EAST_1', 0],
    ['DATABASE_URL_DEV', 1],
    ['DATABASE_URL_SA_EAST_1', 2],
    ['DATABASE_URL', 3],
  ])('takes %s for dev, the names before it unset', (expected, before) => {
    const names = settingNames('DATABASE_URL', DEV);
    const values = Object.fromEntries(
      names.map((variable, index) => [variable, index < before ? '' : variable]),
    );

    expect(resolveSetting('DATABASE_URL', DEV, reader(values))).toEqual({
      variable: expected,
      value: expected,
    });
  });

  it('takes any setting but a stage-bound one from a name without the stage in a portal stage', () => {
    const read = reader({ SECRETS_EXTENSION_LAYER_ARN: 'layer' });
    expect(resolveSetting('SECRETS_EXTENSION_LAYER_ARN', PRODUCTION, read)).toEqual({
      variable: 'SECRETS_EXTENSION_LAYER_ARN',
      value: 'layer',
    });
  });

  it('gives the plain name and no value when nothing is set', () => {
    const resolved = resolveSetting('ALARM_TOPIC_ARN', STAGING, reader({}));
    expect(resolved).toEqual({ variable: 'ALARM_TOPIC_ARN', value: '' });
  });

  it.each(STAGE_BOUND.flatMap((name) => unstagedNames(name, STAGING).map((v) => [name, v])))(
    'refuses %s from %s in staging, even beside staging’s own',
    (name, variable) => {
      const read = reader({ [variable]: 'production’s', [`${name}_STAGING`]: 'staging’s' });

      expect(() => resolveSetting(name, STAGING, read)).toThrow(
        new Error(unstagedMessage(name, variable, STAGING)),
      );
    },
  );

  it('refuses the name with the region before the plain one, and says what to do', () => {
    const read = reader({ VPC_SUBNET_IDS: 'a', VPC_SUBNET_IDS_EU_WEST_1: 'b' });

    expect(() => resolveSetting('VPC_SUBNET_IDS', PRODUCTION, read)).toThrow(
      new Error(
        'VPC_SUBNET_IDS_EU_WEST_1 is set, but stage "production" reads VPC_SUBNET_IDS only from VPC_SUBNET_IDS_PRODUCTION_EU_WEST_1 or VPC_SUBNET_IDS_PRODUCTION: a name without the stage may hold another stage\'s value; give this stage its own, and unset VPC_SUBNET_IDS_EU_WEST_1',
      ),
    );
  });

  it('never reads another stage’s names', () => {
    const read = reader({
      DATABASE_URL_PRODUCTION: 'production’s',
      DATABASE_URL_PRODUCTION_EU_WEST_1: 'production’s',
    });

    const resolved = resolveSetting('DATABASE_URL', STAGING, read);
    expect(resolved).toEqual({ variable: 'DATABASE_URL', value: '' });
    expect(resolveSetting('DATABASE_URL', { ...DEV, region: 'eu-west-1' }, read).value).toBe('');
  });
});
