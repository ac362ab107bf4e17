/**
 * The one place chains are composed, in the order the contract needs:
 * CORS → error formatting → bearer → JWT verification → ownership → query → handler.
 * `before` phases run in that order; `onError`/`after` in reverse, so the error formatter
 * renders every failure and CORS then decorates it.
 */
import middy from '@middy/core';
import { headerValues, jsonResult, queryValues } from '../shared/http/event';
import type { GatewayEvent, GatewayResult } from '../shared/http/event';
import { csvFileName, csvResult, reportFormat, toCsv } from '../shared/reports/csv';
import type { ReportDefinition, ReportResponse } from '../shared/reports/report';
import type { Dependencies } from '../shared/runtime';
import type { ServiceDefinition } from '../shared/service';
import { accessLog } from './access-log';
import { bearer } from './bearer';
import { cors } from './cors';
import { errorHandler } from './error-handler';
import { ownership } from './ownership';
import { queryParameters } from './query';
import { requireState, type PortalContext } from './types';
import { verifyJwt } from './verify-jwt';

export type PortalHandler = (event: GatewayEvent, context: PortalContext) => Promise<GatewayResult>;

/**
 * Access log, CORS and error formatting: the start of every chain. The access log comes first
 * so that it times the whole request and sees the final response.
 */
export const baseChain = (deps: Pick<Dependencies, 'logger'>) => {
  const log = accessLog({ logger: deps.logger });
  return middy<GatewayEvent, GatewayResult, Error, PortalContext>(log.plugin)
    .use(log.middleware)
    .use(cors({ exposeHeaders: 'Content-Disposition' }))
    .use(errorHandler({ logger: deps.logger }));
};

/** The base chain, bearer and verification: every endpoint called with the owner's token. */
export const authenticatedChain = (deps: Pick<Dependencies, 'logger' | 'verifier'>) =>
  baseChain(deps)
    .use(bearer())
    .use(verifyJwt({ verifier: deps.verifier }));

/** The authenticated chain plus the ownership check: every endpoint about one restaurant. */
export const portalChain = (deps: Pick<Dependencies, 'logger' | 'verifier' | 'ownership'>) =>
  authenticatedChain(deps).use(ownership({ rules: deps.ownership }));

/**
 * A report endpoint (spec 4.1, 2.4): the chain, the report's query validation, then its rows
 * as JSON or, when asked, CSV.
 */
export const reportEndpoint = <Q, D>(
  report: ReportDefinition<Q, D>,
  data: D,
  deps: Pick<Dependencies, 'logger' | 'verifier' | 'ownership'>,
) =>
  portalChain(deps)
    .use(queryParameters((read) => report.parseQuery(read)))
    .handler(async (event, context) => {
      const format = reportFormat(queryValues(event, 'format'), headerValues(event, 'accept'));
      const { restaurantId, platformId } = requireState(context, 'access');
      const query = requireState(context, 'query') as Q;
      const rows = await report.rows(data, { restaurantId, platformId }, query);
      if (format === 'csv') {
        const fileName = csvFileName([report.id, restaurantId, ...report.fileNameParts(query)]);
        return csvResult(toCsv(report.properties, rows), fileName);
      }
      const body: ReportResponse = { data: rows };
      return jsonResult(200, body);
    });

/** A service endpoint (spec 2.5): the chain, its query validation, then `{ "data": … }`. */
export const serviceEndpoint = <Q, D, B>(
  service: ServiceDefinition<Q, D, B>,
  data: D,
  deps: Pick<Dependencies, 'logger' | 'verifier' | 'ownership'>,
) =>
  portalChain(deps)
    .use(queryParameters((read) => service.parseQuery(read)))
    .handler(async (_event, context) => {
      const { restaurantId, platformId } = requireState(context, 'access');
      const query = requireState(context, 'query') as Q;
      return jsonResult(200, {
        data: await service.run(data, { restaurantId, platformId }, query),
      });
    });
