/**
 * __TITLE__ (created by `npm run new:report -- __NAME__`): orders and sales per order state in
 * a day range. Adapt its properties (each with an English name and, where it is one, a unit),
 * its port and its query (queries/__NAME__.ts) to the report you need.
 */
import type { DateRange } from '../dates';
import { DAY_RANGE_PARAMETERS, parseDayRange, rangeFileNameParts, type DayRangeParameters } from './query';
import type { ReportDefinition } from './report';
import type { ReportScope } from './repository';

export interface __PASCAL__Row {
  readonly state: string;
  readonly orderCount: number;
  readonly revenue: number;
}

/** The data port of the report. */
export interface __PASCAL__Port {
  __CAMEL__(scope: ReportScope, range: DateRange): Promise<__PASCAL__Row[]>;
}

export const __CAMEL__: ReportDefinition<DayRangeParameters, __PASCAL__Port> = {
  id: '__NAME__',
  title: '__TITLE__',
  description: 'Orders and sales per order state in the range.',
  properties: [
    { key: 'state', name: 'State', type: 'string', csvName: 'state' },
    { key: 'orderCount', name: 'Orders', type: 'integer', csvName: 'orders' },
    { key: 'revenue', name: 'Sales', type: 'number', unit: 'CURRENCY', csvName: 'sales' },
  ],
  parameters: DAY_RANGE_PARAMETERS,
  parseQuery: (read) => parseDayRange(read, { compare: false }),
  fileNameParts: rangeFileNameParts,
  async rows(port, scope, { range }) {
    const rows = await port.__CAMEL__(scope, range);
    return rows.map(({ state, orderCount, revenue }) => ({ data: { state, orderCount, revenue } }));
  },
};
