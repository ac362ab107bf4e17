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
  it('total orders and sales over the days, the average order value being sales / orders', () => {
    expect(sumOf(ROWS, 'orderCount')).toBe(4);
    expect(sumOf(ROWS, 'revenue', 'compare')).toBe(0);
    expect(summaryFigures(PROPERTIES, ROWS, false)).toEqual([
      { key: 'orders', value: 4 },
      { key: 'sales', value: 14.75 },
      { key: 'average', value: 14.75 / 4 },
    ]);
  });

  it('give the change (a − b) / b against the comparison, none on a base of zero', () => {
    expect(change(4, 4)).toBe(0);
    expect(change(3, 4)).toBe(-0.25);
    expect(change(1, 0)).toBeNull();
    expect(summaryFigures(PROPERTIES, ROWS, true)).toEqual([
      { key: 'orders', value: 4, compare: { value: 4, change: 0 } },
      { key: 'sales', value: 14.75, compare: { value: 0, change: null } },
      { key: 'average', value: 14.75 / 4, compare: { value: 0, change: null } },
    ]);
  });

  it('count orders by row where rows are orders, with the cancellation rate', () => {
    const properties: ReportProperty[] = [
      { key: 'state', name: 'State', type: 'string' },
      { key: 'total', name: 'Total', type: 'number', unit: 'CURRENCY' },
    ];
    const rows: ReportRow[] = [
      { data: { state: 'DELIVERED', total: 30 } },
      { data: { state: 'PLACED', total: 10 } },
      { data: { state: 'CANCELLED', total: 99 } },
      { data: { state: 'REJECTED', total: 1 } },
    ];
    expect(summaryFigures(properties, rows, false)).toEqual([
      { key: 'orders', value: 2 },
      { key: 'sales', value: 40 },
      { key: 'average', value: 20 },
      { key: 'cancelled', value: 0.5 },
    ]);
  });

  it('give only sales for rows that overlap (dishes), and count a missing value as nothing', () => {
    const dishes: ReportProperty[] = [
      { key: 'name', name: 'Dish', type: 'string' },
      { key: 'orderCount', name: 'Orders', type: 'integer' },
      { key: 'revenue', name: 'Sales', type: 'number', unit: 'CURRENCY' },
    ];
    expect(
      summaryFigures(dishes, [{ data: { name: 'a', orderCount: 2, revenue: 'n/a' } }], false),
    ).toEqual([{ key: 'sales', value: 0 }]);
    expect(sumOf([{ data: { orderCount: 2 } }], 'orderCount', 'compare')).toBe(0);
  });
});
