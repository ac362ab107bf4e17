/**
 * List report (spec 2.4): every dish ordered in the range with the number of orders that
 * contained it and the revenue of its lines. Highest revenue first, then most orders, then
 * name.
 */
import { dishesQueries, type DishesQueries } from './dishes.sql';
import {
  DAY_RANGE_PARAMETERS,
  parseDayRange,
  rangeFileNameParts,
  type DayRangeParameters,
} from './parameters';
import type { ReportDefinition } from './report';

export const dishes: ReportDefinition<DayRangeParameters, DishesQueries> = {
  id: 'dishes',
  title: 'Dishes',
  description: 'Every dish ordered in the range, with its orders and sales, highest sales first.',
  properties: [
    { key: 'name', name: 'Dish', type: 'string', csvName: 'dish' },
    { key: 'orderCount', name: 'Orders', type: 'integer', csvName: 'orders' },
    { key: 'revenue', name: 'Sales', type: 'number', unit: 'CURRENCY', csvName: 'sales' },
  ],
  parameters: DAY_RANGE_PARAMETERS,
  parseParameters: (read) => parseDayRange(read, { compare: false }),
  queries: dishesQueries,
  fileNameParts: rangeFileNameParts,
  async rows(queries, scope, { range }) {
    const list = await queries.dishes(scope, range);
    return list.map(({ name, orderCount, revenue }) => ({ data: { name, orderCount, revenue } }));
  },
};
