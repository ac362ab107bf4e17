/**
 * The plugin's state, one store each: the current restaurant (the only place it lives, updated
 * by the SDK observer), its currency, and the user's selection (report, period, comparison).
 */
import {
  comparisonFor,
  defaultRange,
  presetRange,
  presetsFor,
  rangeProblem,
  type CompareMode,
  type DateRange,
  type Preset,
} from './range';
import type { RangeRule, ReportSpec } from './reports';
import { createStore, type Store } from './store';
import type { Figure } from './summary';

/**
 * The restaurant as the plugin keeps it: the part of the SDK's RestaurantData (tools/portal/sdk.ts)
 * it reads, so these modules need no DOM types.
 */
export interface Restaurant {
  /** The brand-internal id, used in the API paths. */
  readonly id: string;
}

export interface Selection {
  readonly reportId: string;
  readonly range: DateRange;
  /** The preset the period follows as the restaurant's day moves; null for one typed. */
  readonly preset: Preset | null;
  readonly compareOn: boolean;
  /** How the comparison follows the period. */
  readonly compareMode: CompareMode;
  readonly compare: DateRange;
}

export interface CurrencyState {
  readonly restaurantId: string;
  readonly currency: string | undefined;
  /** The dashboard's figures of today against the same weekday a week earlier. */
  readonly today?: { readonly figures: readonly Figure[]; readonly compareDate: string };
}

export interface PluginState {
  readonly restaurant: Store<Restaurant | undefined>;
  readonly currency: Store<CurrencyState | undefined>;
  readonly selection: Store<Selection>;
  /** The restaurant's calendar day (the dashboard's `date`); the browser's until it answers. */
  readonly today: Store<string>;
}

const DAY_RULE = { granularity: 'day', max: 31 } as const;

/** The selection for a report, keeping the current one's period when the granularity allows. */
export const selectReport = (
  report: ReportSpec,
  today: string,
  previous?: Selection,
  previousReport?: ReportSpec,
): Selection => {
  const rule = report.range ?? DAY_RULE;
  const keep = previous !== undefined && previousReport?.range?.granularity === rule.granularity;
  const range = keep ? previous.range : defaultRange(today, rule);
  const compareMode = previous?.compareMode ?? 'previous';
  const preset = presetsFor(rule, today).find(
    (candidate) => JSON.stringify(presetRange(candidate, today)) === JSON.stringify(range),
  );
  return {
    reportId: report.id,
    range,
    preset: keep ? previous.preset : (preset ?? null),
    compareOn: keep ? previous.compareOn : false,
    compareMode,
    compare: keep ? previous.compare : comparisonFor(range, compareMode, rule),
  };
};

/**
 * The selection with a new period, or a new way of following it: the comparison moves with the
 * period (the same length, before it or a year earlier). Only the comparison's own inputs set
 * it apart.
 */
export const followPeriod = (
  selection: Selection,
  change: Partial<Pick<Selection, 'range' | 'compareMode' | 'preset'>>,
  rule: RangeRule,
): Selection => {
  const next = { ...selection, ...(change.range ? { preset: null } : {}), ...change };
  // A period being typed (incomplete, reversed) leaves the comparison where it was.
  if (rangeProblem(next.range, rule)) return next;
  return { ...next, compare: comparisonFor(next.range, next.compareMode, rule) };
};

/** The selection with the period of `preset` on `today`. */
export const choosePreset = (
  selection: Selection,
  preset: Preset,
  today: string,
  rule: RangeRule,
): Selection => followPeriod(selection, { range: presetRange(preset, today), preset }, rule);

/** The selection on another day: a preset period moves with it, a typed one stays. */
export const onDay = (selection: Selection, today: string, rule: RangeRule): Selection =>
  selection.preset ? choosePreset(selection, selection.preset, today, rule) : selection;

export const createState = (reports: readonly ReportSpec[], today: string): PluginState => {
  const [first] = reports;
  if (!first) throw new TypeError('the plugin offers no report');
  return {
    restaurant: createStore<Restaurant | undefined>(undefined),
    currency: createStore<CurrencyState | undefined>(undefined),
    selection: createStore(selectReport(first, today)),
    today: createStore(today),
  };
};
