import type { ReportRow } from '../../../tools/reports-plugin/src/api';
import type { ReportProperty } from '../../../tools/reports-plugin/src/reports';
import { change, sumOf, summaryFigures } from '../../../tools/reports-plugin/src/summary';

const PROPERTIES: ReportProperty[] = [
  { key: 'date', name: 'Day', type: 'string', unit: 'DATE' },
  { key: 'orderCount', name: 'Orders', type: 'integer' },
  { key: 'revenue', name: 'Sales', type: 'number', unit: 'CURRENCY' },
];
const ROWS: ReportRow[] = [
  {
    data: { date: '2026-01-01', orderCount: 3, revenue: 10.5 },
    compare: { date: '2025-12-31', orderCount: 2, revenue: 0 },
  },
  {
    data: { date: '2026-01-02', orderCount: 1, revenue: 4.25 },
    compare: { date: '2025-12-30', orderCount: 2, revenue: 0 },
  },
];

describe('the summary cards', () => {
  it('sum each numeric column over the rows', () => {
    expect(sumOf(ROWS, 'orderCount')).toBe(4);
    expect(sumOf(ROWS, 'revenue', 'compare')).toBe(0);
    expect(summaryFigures(PROPERTIES, ROWS, false)).toEqual([
      { property: PROPERTIES[1], value: 4 },
      { property: PROPERTIES[2], value: 14.75 },
    ]);
  });

  it('give the change (a − b) / b against the comparison, none on a base of zero', () => {
    expect(change(4, 4)).toBe(0);
    expect(change(3, 4)).toBe(-0.25);
    expect(change(1, 0)).toBeNull();
    expect(summaryFigures(PROPERTIES, ROWS, true)).toEqual([
      { property: PROPERTIES[1], value: 4, compare: { value: 4, change: 0 } },
      { property: PROPERTIES[2], value: 14.75, compare: { value: 0, change: null } },
    ]);
  });

  it('count a missing or non-numeric value as nothing', () => {
    expect(sumOf([{ data: { orderCount: 'n/a' } }, { data: {} }], 'orderCount')).toBe(0);
    expect(sumOf([{ data: { orderCount: 2 } }], 'orderCount', 'compare')).toBe(0);
  });
});
