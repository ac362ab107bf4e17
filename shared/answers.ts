/**
 * What an endpoint of the catalogue answers, as data: a report (spec 2.4), a service in the
 * generic envelope (spec 2.5), or a body of its own (the plugin registry and its deployment
 * call), with the authentication it takes and the error statuses it can answer (spec 7).
 * Declarations such as tools/plugin-endpoints.ts use these types without importing the
 * catalogue itself.
 */
import type { ParameterDefinition, PropertyDefinition } from './reports/report';

export type JsonSchema = Readonly<Record<string, unknown>>;

export type HttpMethod = 'GET' | 'PUT';

/** The statuses of spec 7. */
export const ERROR_STATUSES = [400, 401, 403, 500] as const;
export type ErrorStatus = (typeof ERROR_STATUSES)[number];

/** `bearer`: the owner's JWT (spec 5); `api-key`: the deployment key in `x-api-key` (spec 4.6). */
export type Authentication = 'bearer' | 'api-key';

/** What the catalogue reads of a report definition (never its SQL). */
export interface CatalogueReport {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly properties: readonly PropertyDefinition[];
  readonly parameters: readonly ParameterDefinition[];
}

/** What the catalogue reads of a service definition (spec 2.5). */
export interface CatalogueService {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly parameters: readonly ParameterDefinition[];
  readonly dataSchema: JsonSchema;
}

/** A query-string parameter of an endpoint with a body of its own. */
export interface CustomParameter extends ParameterDefinition {
  /** The value assumed when the parameter is absent. */
  readonly default?: string;
}

/** An endpoint with a body of its own (the plugin registry and its deployment call). */
export interface CustomAnswer {
  readonly kind: 'custom';
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly parameters: readonly CustomParameter[];
  /** JSON body the request must carry (application/json). */
  readonly requestBodySchema?: JsonSchema;
  /** JSON body of the success answer (200). */
  readonly responseSchema: JsonSchema;
  /** The error statuses it can answer (reports and services: all of them). */
  readonly errorStatuses: readonly ErrorStatus[];
}

export type Answer =
  | { readonly kind: 'report'; readonly report: CatalogueReport }
  | { readonly kind: 'service'; readonly service: CatalogueService }
  | CustomAnswer;
