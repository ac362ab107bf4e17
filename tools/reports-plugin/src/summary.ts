/**
 * The summary cards: the period's orders, sales, average order value (sales / orders) and, for
 * rows that are orders, the cancellation rate, each with the comparison's figure and the change
 * (a − b) / b, none when b is zero. Orders are summed only where rows do not overlap (days,
 * months): a dish's orders also count in another dish's.
 */
import type { ReportRow, RowValues } from './api';
import type { ReportProperty } from './reports';

export type FigureKey = 'orders' | 'sales' | 'average' | 'cancelled';

export interface Figure {
  readonly key: FigureKey;
  readonly value: number;
  /** With a comparison: its figure, and the change against it (null: no change without a base). */
  readonly compare?: { readonly value: number; readonly change: number | null };
}

export const change = (value: number, base: number): number | null =>
  base === 0 ? null : (value - base) / base;

const numberOf = (values: RowValues | undefined, key: string): number => {
  const value = values?.[key];
  return typeof value === 'number' ? value : 0;
};

export const sumOf = (
  rows: readonly ReportRow[],
  key: string,
  side: 'data' | 'compare' = 'data',
): number => rows.reduce((sum, row) => sum + numberOf(row[side], key), 0);

const CANCELLED = new Set(['CANCELLED', 'REJECTED']);

/** The figures of one side of the rows, by key. */
const totals = (
  properties: readonly ReportProperty[],
  rows: readonly ReportRow[],
  side: 'data' | 'compare',
): Partial<Record<FigureKey, number>> => {
  const sales = properties.find((p) => p.unit === 'CURRENCY')?.key;
  const has = (key: string) => properties.some((p) => p.key === key);
  let orders: number | undefined;
  let salesTotal = sales ? sumOf(rows, sales, side) : undefined;
  let cancelled: number | undefined;
  if (has('state')) {
    // Each row an order: cancelled and rejected ones count only in the rate.
    const all = rows.flatMap((row) => (row[side] ? [row[side]] : []));
    const counted = all.filter((values) => !CANCELLED.has(String(values.state)));
    orders = counted.length;
    salesTotal = sales ? counted.reduce((sum, values) => sum + numberOf(values, sales), 0) : 0;
    cancelled = all.length ? (all.length - orders) / all.length : 0;
  } else if (has('orderCount') && properties.some((p) => p.unit?.startsWith('DATE'))) {
    orders = sumOf(rows, 'orderCount', side);
  }
  return {
    ...(orders === undefined ? {} : { orders }),
    ...(salesTotal === undefined ? {} : { sales: salesTotal }),
    ...(orders === undefined || salesTotal === undefined
      ? {}
      : { average: orders ? salesTotal / orders : 0 }),
    ...(cancelled === undefined ? {} : { cancelled }),
  };
};

/** The figures with their comparison, as cards show them. */
export const compared = (
  value: Partial<Record<FigureKey, number>>,
  base?: Partial<Record<FigureKey, number>>,
): Figure[] =>
  (['orders', 'sales', 'average', 'cancelled'] as const).flatMap((key): Figure[] => {
    const a = value[key];
    if (a === undefined) return [];
    const b = base?.[key];
    return [
      b === undefined
        ? { key, value: a }
        : { key, value: a, compare: { value: b, change: change(a, b) } },
    ];
  });

export const summaryFigures = (
  properties: readonly ReportProperty[],
  rows: readonly ReportRow[],
  comparing: boolean,
): Figure[] =>
  compared(
    totals(properties, rows, 'data'),
    comparing ? totals(properties, rows, 'compare') : undefined,
  );
