/**
 * __TITLE__ (created by `npm run new:report -- __NAME__`): orders and sales per order state in
 * a day range. Adapt its properties (each with an English name and, where it is one, a unit),
 * its parameters and its SQL (__NAME__.sql.ts) to the report you need.
 */
import { __CAMEL__Queries, type __PASCAL__Queries } from './__NAME__.sql';
import { DAY_RANGE_PARAMETERS, parseDayRange, rangeFileNameParts, type DayRangeParameters } from './parameters';
import type { ReportDefinition } from './report';

export const __CAMEL__: ReportDefinition<DayRangeParameters, __PASCAL__Queries> = {
  id: '__NAME__',
  title: '__TITLE__',
  description: 'Orders and sales per order state in the range.',
  properties: [
    { key: 'state', name: 'State', type: 'string', csvName: 'state' },
    { key: 'orderCount', name: 'Orders', type: 'integer', csvName: 'orders' },
    { key: 'revenue', name: 'Sales', type: 'number', unit: 'CURRENCY', csvName: 'sales' },
  ],
  parameters: DAY_RANGE_PARAMETERS,
  parseParameters: (read) => parseDayRange(read, { compare: false }),
  queries: __CAMEL__Queries,
  fileNameParts: rangeFileNameParts,
  async rows(queries, scope, { range }) {
    const rows = await queries.__CAMEL__(scope, range);
    return rows.map(({ state, orderCount, revenue }) => ({ data: { state, orderCount, revenue } }));
  },
};
