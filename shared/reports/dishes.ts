/**
 * List report (spec 2.4): every dish ordered in the range with the number of orders that
 * contained it and the revenue of its lines. Highest revenue first, then most orders, then
 * name.
 */
import type { ReportDefinition } from './report';

export const dishes: ReportDefinition = {
  id: 'dishes',
  title: 'Dishes',
  comparable: false,
  properties: [
    { key: 'name', name: 'Dish', type: 'string' },
    { key: 'orderCount', name: 'Orders', type: 'integer' },
    { key: 'revenue', name: 'Sales', type: 'number', unit: 'CURRENCY' },
  ],
  async rows(repository, scope, { range }) {
    const list = await repository.dishes(scope, range);
    return list.map(({ name, orderCount, revenue }) => ({ data: { name, orderCount, revenue } }));
  },
};
