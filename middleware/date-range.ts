/**
 * Date-range validation (spec 4.1, 7, 8): `from`/`to` and, where the report allows it, the
 * `compare[from]`/`compare[to]` pair — the query step with the day-range parser.
 */
import { parseReportQuery } from '../shared/reports/query';
import { queryParameters } from './query';
import type { PortalMiddleware } from './types';

export interface DateRangeOptions {
  readonly compare: boolean;
}

export const dateRange = ({ compare }: DateRangeOptions): PortalMiddleware =>
  queryParameters((read) => parseReportQuery(read, { compare }));
