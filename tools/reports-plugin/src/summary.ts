/**
 * The summary cards: for each numeric column, its sum over the rows the table shows and, with a
 * comparison, the comparison's sum and the change (a − b) / b, none when b is zero.
 */
import type { ReportRow } from './api';
import type { ReportProperty } from './reports';

export interface Figure {
  readonly property: ReportProperty;
  readonly value: number;
  /** With a comparison: its sum, and the change against it (null: no change without a base). */
  readonly compare?: { readonly value: number; readonly change: number | null };
}

export const sumOf = (
  rows: readonly ReportRow[],
  key: string,
  side: 'data' | 'compare' = 'data',
): number =>
  rows.reduce((sum, row) => {
    const value = row[side]?.[key];
    return typeof value === 'number' ? sum + value : sum;
  }, 0);

export const change = (value: number, base: number): number | null =>
  base === 0 ? null : (value - base) / base;

export const summaryFigures = (
  properties: readonly ReportProperty[],
  rows: readonly ReportRow[],
  comparing: boolean,
): Figure[] =>
  properties
    .filter((property) => property.type !== 'string')
    .map((property) => {
      const value = sumOf(rows, property.key);
      if (!comparing) return { property, value };
      const base = sumOf(rows, property.key, 'compare');
      return { property, value, compare: { value: base, change: change(value, base) } };
    });
