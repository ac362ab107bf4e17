/**
 * The one place the chain is composed, in the order the contract needs:
 * CORS → error formatting → bearer → JWT verification → ownership → (date range) → handler.
 * `before` phases run in that order; `onError`/`after` in reverse, so the error formatter
 * renders every failure and CORS then decorates it.
 */
import middy from '@middy/core';
import type { GatewayEvent, GatewayResult } from '../shared/http/event';
import { jsonResult } from '../shared/http/event';
import type { ReportDefinition, ReportResponse } from '../shared/reports/report';
import type { Dependencies } from '../shared/runtime';
import { bearer } from './bearer';
import { cors } from './cors';
import { dateRange } from './date-range';
import { errorHandler } from './error-handler';
import { ownership } from './ownership';
import { requireState, type PortalContext } from './types';
import { verifyJwt } from './verify-jwt';

export type PortalHandler = (event: GatewayEvent, context: PortalContext) => Promise<GatewayResult>;

/** CORS, errors, bearer, verification and ownership: what every portal endpoint needs. */
export const portalChain = (deps: Dependencies) =>
  middy<GatewayEvent, GatewayResult, Error, PortalContext>()
    .use(cors())
    .use(errorHandler({ logger: deps.logger }))
    .use(bearer())
    .use(verifyJwt({ verifier: deps.verifier }))
    .use(ownership({ rules: deps.ownership }));

/** A report endpoint (spec 4.1): the chain plus date-range validation, then the report's rows. */
export const reportEndpoint = (report: ReportDefinition, deps: Dependencies) =>
  portalChain(deps)
    .use(dateRange({ compare: report.comparable }))
    .handler(async (_event, context) => {
      const { restaurantId, platformId } = requireState(context, 'access');
      const query = requireState(context, 'query');
      const body: ReportResponse = {
        data: await report.rows(deps.reports, { restaurantId, platformId }, query),
      };
      return jsonResult(200, body);
    });
