/** tools/release/arguments.ts: the arguments of `npm run package` and `npm run deploy`. */
import { parseReleaseArguments } from '../../../tools/release/arguments';
import { ReleaseUsageError } from '../../../tools/release/regions';

const PLACES = { cwd: '/home/me/work', root: '/repo' };
/** What neither --check nor a preflight option turns on. */
const PLAIN = { check: false, describe: false, skipPreflight: false, preflightOnly: false };

describe('parseReleaseArguments', () => {
  it('packages dev by default into .serverless-packages/<stage> under the project', () => {
    expect(parseReleaseArguments('package', [], PLACES)).toEqual({
      stage: 'dev',
      regions: [],
      out: '/repo/.serverless-packages/dev',
      ...PLAIN,
    });
  });

  it('reads --stage, repeated and comma-separated --region without repeats, and --out', () => {
    // Act
    const parsed = parseReleaseArguments(
      'deploy',
      [
        '--stage',
        'production',
        '--region',
        'sa-east-1, eu-west-1',
        '--region=me-central-1',
        '--region',
        'sa-east-1',
        '--out',
        'build/packages',
      ],
      PLACES,
    );

    // Assess: a relative --out from where npm was run
    expect(parsed).toEqual({
      stage: 'production',
      regions: ['sa-east-1', 'eu-west-1', 'me-central-1'],
      out: '/home/me/work/build/packages',
      ...PLAIN,
    });
    expect(parseReleaseArguments('package', ['--out', '/tmp/p', '--check'], PLACES)).toMatchObject({
      out: '/tmp/p',
      check: true,
    });
  });

  it('reads the preflight and bake options of deploy', () => {
    expect(
      parseReleaseArguments(
        'deploy',
        ['--stage', 'production', '--skip-preflight', '--bake-minutes', '0.5'],
        PLACES,
      ),
    ).toMatchObject({ skipPreflight: true, preflightOnly: false, bakeMinutes: '0.5' });
    expect(
      parseReleaseArguments('deploy', ['--stage', 'staging', '--preflight-only'], PLACES),
    ).toMatchObject({ skipPreflight: false, preflightOnly: true });
  });

  it('answers --help', () => {
    expect(parseReleaseArguments('deploy', ['--help'], PLACES)).toBe('help');
  });

  it.each([
    ['deploy', [], '--stage is required: the stage to deploy, such as production'],
    ['deploy', ['--stage', 'production', '--check'], '--check is for npm run package'],
    ['deploy', ['--stage', 'production', '--describe'], '--describe is for npm run package'],
    ['package', ['--check', '--describe'], '--check and --describe exclude each other'],
    ['package', ['--stage', ' '], '--stage is empty'],
    ['package', ['--region', 'eu-west-1,'], '--region names an empty region'],
    ['package', ['--out', ''], '--out is empty'],
    ['package', ['--skip-preflight'], '--skip-preflight is for npm run deploy'],
    ['package', ['--bake-minutes', '1'], '--bake-minutes is for npm run deploy'],
    [
      'deploy',
      ['--stage', 'production', '--skip-preflight', '--preflight-only'],
      '--skip-preflight and --preflight-only exclude each other',
    ],
    ['package', ['--param', 'A=b'], "Unknown option '--param'"],
    ['package', ['production'], 'positional argument'],
  ] as const)('%s %j: refused (%s)', (command, args, message) => {
    expect(() => parseReleaseArguments(command, args, PLACES)).toThrow(ReleaseUsageError);
    expect(() => parseReleaseArguments(command, args, PLACES)).toThrow(message);
  });
});
