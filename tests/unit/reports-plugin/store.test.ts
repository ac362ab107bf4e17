import {
  choosePreset,
  createState,
  followPeriod,
  onDay,
  selectReport,
} from '../../../tools/reports-plugin/src/state';
import { createStore } from '../../../tools/reports-plugin/src/store';
import type { ReportSpec } from '../../../tools/reports-plugin/src/reports';

const report = (id: string, range: ReportSpec['range'], compare = false): ReportSpec => ({
  id,
  title: id,
  path: `/v1/restaurants/{id}/${id}`,
  properties: [],
  range,
  compare,
});
const PER_DAY = report('orders-per-day', { granularity: 'day', max: 31 }, true);
const DISHES = report('dishes', { granularity: 'day', max: 31 });
const REVENUE = report('revenue', { granularity: 'month', max: 12 });
const TODAY = report('orders-today', null);

describe('a store', () => {
  it('tells every observer of each change, once, and stops when asked', () => {
    const store = createStore('R-1001');
    const seen: string[][] = [[], []];
    const stopFirst = store.subscribe((value) => seen[0]!.push(value));
    store.subscribe((value) => seen[1]!.push(value));

    store.set('R-1002');
    store.set('R-1002');
    stopFirst();
    store.set('R-1003');

    expect(store.get()).toBe('R-1003');
    expect(seen).toEqual([['R-1002'], ['R-1002', 'R-1003']]);
  });

  it('an observer that unsubscribes during a change does not disturb the others', () => {
    const store = createStore(0);
    const seen: number[] = [];
    const stop = store.subscribe(() => {
      stop();
    });
    store.subscribe((value) => seen.push(value));
    store.set(1);
    store.set(2);
    expect(seen).toEqual([1, 2]);
  });
});

describe('the plugin state', () => {
  it('holds the current restaurant in one store, empty until the observer fills it', () => {
    const state = createState([PER_DAY, DISHES], '2026-11-25');
    const restaurant = { id: 'R-1001', platforms: [] };
    const seen: unknown[] = [];
    state.restaurant.subscribe((value) => seen.push(value));

    expect(state.restaurant.get()).toBeUndefined();
    state.restaurant.set(restaurant);

    expect(state.restaurant.get()).toBe(restaurant);
    expect(seen).toEqual([restaurant]);
  });

  it('starts on the first report, the last 7 days, no comparison', () => {
    expect(createState([PER_DAY], '2026-11-25').selection.get()).toEqual({
      reportId: 'orders-per-day',
      range: { from: '2026-11-19', to: '2026-11-25' },
      preset: 'last7',
      compareOn: false,
      compareMode: 'previous',
      compare: { from: '2026-11-12', to: '2026-11-18' },
    });
    expect(() => createState([], '2026-11-25')).toThrow(TypeError);
  });

  it('moves the comparison with the period: the same length, before it or a year earlier', () => {
    // Prepare
    const rule = { granularity: 'day', max: 31 } as const;
    const chosen = {
      ...selectReport(PER_DAY, '2026-11-25'),
      range: { from: '2026-11-15', to: '2026-11-21' },
      preset: null,
      compareOn: true,
      compare: { from: '2026-11-15', to: '2026-11-21' },
    };

    // Act
    const moved = followPeriod(chosen, { range: { from: '2026-11-01', to: '2026-11-07' } }, rule);
    const longer = followPeriod(moved, { range: { from: '2026-10-01', to: '2026-10-31' } }, rule);
    const yearly = followPeriod(longer, { compareMode: 'year' }, rule);
    const movedYearly = followPeriod(
      yearly,
      { range: { from: '2026-11-01', to: '2026-11-07' } },
      rule,
    );

    // Assess
    expect(moved).toEqual({
      ...chosen,
      range: { from: '2026-11-01', to: '2026-11-07' },
      compare: { from: '2026-10-25', to: '2026-10-31' },
    });
    expect(longer.compare).toEqual({ from: '2026-08-31', to: '2026-09-30' });
    expect(yearly).toMatchObject({
      compareMode: 'year',
      range: longer.range,
      compare: { from: '2025-10-01', to: '2025-10-31' },
    });
    expect(movedYearly.compare).toEqual({ from: '2025-11-01', to: '2025-11-07' });
    // A period being typed leaves the comparison where it was until it is a period again.
    for (const typing of [
      { from: '2026-11-01', to: '' },
      { from: '2026-11-08', to: '2026-11-01' },
    ]) {
      expect(followPeriod(movedYearly, { range: typing }, rule)).toEqual({
        ...movedYearly,
        range: typing,
      });
    }
    // The way it follows is kept across reports, even where the period is not.
    expect(selectReport(REVENUE, '2026-11-25', movedYearly, PER_DAY)).toMatchObject({
      compareMode: 'year',
      range: { from: '2026-06-01', to: '2026-11-01' },
      compare: { from: '2025-06-01', to: '2025-11-01' },
    });
  });

  it('keeps the period across reports of the same granularity, not across days and months', () => {
    const first = {
      ...selectReport(PER_DAY, '2026-11-25'),
      range: { from: '2026-11-01', to: '2026-11-10' },
      compareOn: true,
    };
    const dishes = selectReport(DISHES, '2026-11-25', first, PER_DAY);
    expect(dishes).toEqual({ ...first, reportId: 'dishes' });

    const revenue = selectReport(REVENUE, '2026-11-25', dishes, DISHES);
    expect(revenue.range).toEqual({ from: '2026-06-01', to: '2026-11-01' });
    expect(revenue.compareOn).toBe(false);

    expect(selectReport(TODAY, '2026-11-25', revenue, REVENUE).reportId).toBe('orders-today');
  });

  it("moves a preset period with the restaurant's day, a typed one not", () => {
    const rule = { granularity: 'day', max: 31 } as const;
    // The browser's day is the 25th; the restaurant's, a time zone ahead, the 26th.
    const preset = choosePreset(
      { ...selectReport(PER_DAY, '2026-11-25'), compareOn: true, compareMode: 'weekday' },
      'yesterday',
      '2026-11-25',
      rule,
    );
    expect(onDay(preset, '2026-11-26', rule)).toMatchObject({
      preset: 'yesterday',
      range: { from: '2026-11-25', to: '2026-11-25' },
      compare: { from: '2025-11-26', to: '2025-11-26' },
    });
    const typed = followPeriod(preset, { range: { from: '2026-11-02', to: '2026-11-03' } }, rule);
    expect(typed.preset).toBeNull();
    expect(onDay(typed, '2026-11-26', rule)).toBe(typed);
  });
});
