import {
  hideRouteTable,
  offlineLogEnv,
  startOptions,
  type StartOptions,
} from '../../../tools/local/verbosity';

const QUIET: StartOptions = { verbose: false };
const VERBOSE: StartOptions = { verbose: true };

/** serverless-offline's route table as console.log writes it: boxen's box with a margin line on each side. */
const ROUTE_TABLE =
  '\n┌──────────┐\n│          │\n│   GET | http://localhost:3000/v1/plugins │\n│          │\n└──────────┘\n\n';
const LINE = '{"level":"error","message":"request failed","status":500}\n';

describe('npm start: quiet unless asked (tools/local/verbosity.ts)', () => {
  it.each([
    [[], {}, false],
    [['--verbose'], {}, true],
    [[], { LOG_LEVEL: 'info' }, true],
    [[], { LOG_LEVEL: ' debug ' }, true],
    [[], { LOG_LEVEL: 'warn' }, false],
    [['--verbose'], { LOG_LEVEL: 'error' }, true],
  ])('argv %j with %j is verbose: %s', (argv, env, verbose) => {
    // Act / Assess
    expect(startOptions(argv, env)).toEqual({ verbose });
  });

  it('refuses an argument it does not take, naming it', () => {
    // Act / Assess
    expect(startOptions(['--verbose', '--quiet'], {})).toEqual(
      new Error('unknown argument --quiet'),
    );
  });

  it.each([
    [QUIET, {}, { LOG_LEVEL: 'warn', SLS_LOG_LEVEL: 'warning' }],
    [VERBOSE, {}, { LOG_LEVEL: 'info', SLS_LOG_LEVEL: 'notice' }],
    [VERBOSE, { LOG_LEVEL: 'debug' }, { LOG_LEVEL: 'debug', SLS_LOG_LEVEL: 'notice' }],
    [QUIET, { LOG_LEVEL: 'error' }, { LOG_LEVEL: 'error', SLS_LOG_LEVEL: 'warning' }],
  ])('%j with %j: the levels %j', (options, env, expected) => {
    // Act / Assess
    expect(offlineLogEnv(options, env)).toEqual(expected);
  });

  it('drops the route table and its margin lines, and keeps every other line', () => {
    // Prepare
    const filter = hideRouteTable();

    // Act / Assess
    expect(filter.push(`${LINE}${ROUTE_TABLE}${LINE}`) + filter.end()).toBe(`${LINE}${LINE}`);
  });

  it('drops the route table however the pipe splits it, and keeps a blank line away from it', () => {
    // Prepare
    const text = `${LINE}\n${LINE}${ROUTE_TABLE}${LINE}`;
    const filter = hideRouteTable();

    // Act: one UTF-16 unit at a time (the box's characters are one unit each)
    let kept = '';
    for (let index = 0; index < text.length; index++) kept += filter.push(text.charAt(index));
    kept += filter.end();

    // Assess
    expect(kept).toBe(`${LINE}\n${LINE}${LINE}`);
  });

  it('writes an unfinished last line at the end', () => {
    // Prepare
    const filter = hideRouteTable();

    // Act / Assess
    expect(filter.push('{"level":"warn"') + filter.end()).toBe('{"level":"warn"');
  });
});
