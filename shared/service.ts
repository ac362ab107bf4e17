/**
 * A portal service that is not a report (spec 2.5): it answers the generic success envelope
 * `{ "data": … }` for one restaurant, from its own query parameters and data port.
 */
import type { ParameterDefinition } from './reports/report';
import type { QueryReader } from './reports/query';
import type { ReportScope } from './reports/repository';

export interface ServiceDefinition<Q, D, B> {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly parameters: readonly ParameterDefinition[];
  /** JSON Schema of `data` in the envelope (manifest, OpenAPI). */
  readonly dataSchema: Readonly<Record<string, unknown>>;
  parseQuery(read: QueryReader): Q;
  run(data: D, scope: ReportScope, query: Q): Promise<B>;
}
