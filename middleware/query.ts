/**
 * Query validation: runs the endpoint's own parser over the query parameters (read as the
 * flat keys API Gateway delivers, every repeated value kept) and hands the parsed query on.
 */
import { queryValues } from '../shared/http/event';
import type { QueryReader } from '../shared/reports/query';
import { stateOf, type PortalMiddleware, type PortalRequest } from './types';

export const queryParameters = (parse: (read: QueryReader) => unknown): PortalMiddleware => {
  const queryParametersBefore = (request: PortalRequest) => {
    stateOf(request.context).query = parse((name) => queryValues(request.event, name));
  };
  return { before: queryParametersBefore };
};
