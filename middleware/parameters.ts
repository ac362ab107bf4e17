/**
 * Parameter validation: runs the endpoint's own parser over its query-string parameters (read
 * as the flat keys API Gateway delivers, every repeated value kept) and hands the parsed
 * parameters on.
 */
import { queryStringValues, type ParameterReader } from '../shared/http/event';
import { stateOf, type PortalMiddleware, type PortalRequest } from './types';

export const parameters = (parse: (read: ParameterReader) => unknown): PortalMiddleware => {
  const parametersBefore = (request: PortalRequest) => {
    stateOf(request.context).parameters = parse((name) => queryStringValues(request.event, name));
  };
  return { before: parametersBefore };
};
