/**
 * Date-range validation (spec 4.1, 7, 8): `from`/`to` and, where the report allows it, the
 * `compare[from]`/`compare[to]` pair, read as the flat keys API Gateway delivers.
 */
import { queryValues } from '../shared/http/event';
import { parseReportQuery } from '../shared/reports/query';
import { stateOf, type PortalMiddleware, type PortalRequest } from './types';

export interface DateRangeOptions {
  readonly compare: boolean;
}

export const dateRange = ({ compare }: DateRangeOptions): PortalMiddleware => {
  const dateRangeBefore = (request: PortalRequest) => {
    stateOf(request.context).query = parseReportQuery((name) => queryValues(request.event, name), {
      compare,
    });
  };
  return { before: dateRangeBefore };
};
