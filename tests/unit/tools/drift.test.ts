import { jest } from '@jest/globals';
import type { IsoDate } from '../../../shared/dates';
import {
  CHECK_USAGE,
  driftedRestaurantDays,
  driftedRestaurants,
  driftMetricLine,
  formatDrift,
  metricSettings,
  parseCheckArgs,
  summarise,
  type Drift,
} from '../../../tools/db/drift';

const day = (value: string): IsoDate => value as IsoDate;

const DRIFT: readonly Drift[] = [
  {
    table: 'report_daily_orders',
    restaurantId: 'R-2',
    platformId: 'TB_AE',
    day: day('2024-05-01'),
    key: '2024-05-01',
    rollup: { orders: 3, revenue: '20.000' },
    source: { orders: 2, revenue: '15.500' },
  },
  {
    table: 'report_daily_dishes',
    restaurantId: 'R-2',
    platformId: 'HS_AE',
    day: day('2024-05-01'),
    key: 'Soup "hot"',
    rollup: null,
    source: { orders: 1, revenue: '4.000' },
  },
  {
    table: 'report_daily_dishes',
    restaurantId: 'R-1',
    platformId: 'TB_AE',
    day: day('2024-05-03'),
    key: 'Ghost',
    rollup: { orders: 1, revenue: '1.5' },
    source: null,
  },
];

describe('parseCheckArgs', () => {
  it('defaults to every restaurant and day, no repair, no metric', () => {
    expect(parseCheckArgs([])).toEqual({
      options: {
        from: undefined,
        to: undefined,
        restaurantId: undefined,
        repair: false,
        metrics: false,
      },
    });
  });

  it('reads every option, as two words or name=value', () => {
    const argv = '--from 2024-01-31 --to=2024-02-29 --restaurant R-1001 --repair --metrics';
    expect(parseCheckArgs(argv.split(' '))).toEqual({
      options: {
        from: '2024-01-31',
        to: '2024-02-29',
        restaurantId: 'R-1001',
        repair: true,
        metrics: true,
      },
    });
  });

  it.each([
    [['--from', '2024-02-30'], '--from must be a date YYYY-MM-DD, not "2024-02-30"'],
    [['--to=2024-1-5'], '--to must be a date YYYY-MM-DD, not "2024-1-5"'],
    [['--from', '2024-03-02', '--to', '2024-03-01'], '--from 2024-03-02 is after --to 2024-03-01'],
    [['--restaurant'], "Option '--restaurant <value>' argument missing"],
    [
      ['--restaurant', '--repair'],
      "Option '--restaurant' argument is ambiguous. Did you forget to specify the option argument for '--restaurant'? To specify an option argument starting with a dash use '--restaurant=-XYZ'.",
    ],
    [['--restaurant='], '--restaurant needs a value'],
    [['--from='], '--from needs a value'],
    [['--repair=yes'], "Option '--repair' does not take an argument"],
    [['--fix'], "Unknown option '--fix'"],
    [['-x'], "Unknown option '-x'"],
    [['R-1001'], "Unexpected argument 'R-1001'. This command does not take positional arguments"],
  ])('refuses %j: %s', (argv, error) => {
    expect(parseCheckArgs(argv)).toEqual({ error });
  });

  it.each([[['--help']], [['-h']], [['--from', '2024-02-30', '--help']]])(
    'answers %j with its help, before checking the other options',
    (argv) => {
      // Arrange
      const help = jest.fn((): never => {
        throw new Error('help');
      });

      // Act / Assess
      expect(() => parseCheckArgs(argv, help)).toThrow('help');
      expect(help).toHaveBeenCalledTimes(1);
    },
  );

  it('has one usage line naming every option', () => {
    expect(CHECK_USAGE).toBe(
      'usage: npm run db:check -- [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--restaurant ID] [--repair] [--metrics] [--service-role NAME]',
    );
  });
});

describe('drift lines', () => {
  it('prints each drifted row with its key, rollup and source figures', () => {
    expect(DRIFT.map(formatDrift)).toEqual([
      'report_daily_orders R-2 TB_AE 2024-05-01 local day 2024-05-01: rollup 3 orders, revenue 20.000; source 2 orders, revenue 15.500',
      'report_daily_dishes R-2 HS_AE 2024-05-01 dish "Soup \\"hot\\"": rollup no row; source 1 orders, revenue 4.000',
      'report_daily_dishes R-1 TB_AE 2024-05-03 dish "Ghost": rollup 1 orders, revenue 1.5; source no row',
    ]);
  });

  it('counts restaurant-days (platforms and dishes of one day once) and names the restaurants', () => {
    expect(driftedRestaurantDays(DRIFT)).toBe(2);
    expect(driftedRestaurants(DRIFT)).toEqual(['R-1', 'R-2']);
    expect(summarise(DRIFT)).toBe(
      '3 rollup row(s) differ from their source rows: 2 restaurant-day(s) of 2 restaurant(s) (R-1, R-2)',
    );
    expect(summarise([])).toBe('rollups equal their source rows');
  });
});

describe('RollupDrift metric', () => {
  it('is one Embedded Metric Format line: namespace, Service dimension, Count', () => {
    const line = driftMetricLine(
      2,
      { namespace: 'PortalServiceApi', service: 'portal-service-api' },
      new Date(Date.UTC(2026, 10, 25, 6, 0, 0)),
    );

    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      _aws: {
        Timestamp: Date.UTC(2026, 10, 25, 6, 0, 0),
        CloudWatchMetrics: [
          {
            Namespace: 'PortalServiceApi',
            Dimensions: [['Service']],
            Metrics: [{ Name: 'RollupDrift', Unit: 'Count' }],
          },
        ],
      },
      Service: 'portal-service-api',
      RollupDrift: 2,
    });
  });

  it('takes its namespace and service from METRICS_NAMESPACE and METRICS_SERVICE, else the defaults', () => {
    const defaults = { namespace: 'PortalServiceApi', service: 'portal-service-api' };
    expect(metricSettings({})).toEqual(defaults);
    expect(metricSettings({ METRICS_NAMESPACE: ' ', METRICS_SERVICE: '' })).toEqual(defaults);
    expect(metricSettings({ METRICS_NAMESPACE: 'Brand', METRICS_SERVICE: 'reports-eu' })).toEqual({
      namespace: 'Brand',
      service: 'reports-eu',
    });
  });
});
