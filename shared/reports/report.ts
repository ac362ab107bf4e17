/**
 * What a report (spec 1, 2.4) and a service (spec 2.5) are. Each is one definition in
 * `shared/reports/<id>.ts`, beside its SQL in `shared/reports/<id>.sql.ts`: its kebab-case id
 * (from which the catalogue names its handler, function, sample event, logs and CSV files), its
 * English title, description and (a report) properties with their units, its query-string
 * parameters and their validation, its `queries`, and how their results become rows (a report)
 * or `data` (a service). One definition drives the JSON rows, the CSV columns, the manifest for
 * the portal team, the OpenAPI document and the serverless function.
 */
import type { Sql } from '../db/client';
import type { ReportScope } from './domain';
import type { ParameterReader } from '../http/event';

export type Unit = 'DATE' | 'DATE_MONTH' | 'DATE_YEAR' | 'CURRENCY';

export interface PropertyDefinition {
  readonly key: string;
  /** English name shown by the portal (spec 1). */
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number';
  readonly unit?: Unit;
  /** Column name in CSV exports; defaults to the key. */
  readonly csvName?: string;
}

/** A query-string parameter, as the manifest and the OpenAPI document describe it. */
export interface ParameterDefinition {
  readonly name: string;
  readonly description: string;
  readonly required: boolean;
  readonly format?: 'date';
  readonly enum?: readonly string[];
}

export type RowValues = Readonly<Record<string, string | number>>;

/** One row of the report response (spec 2.4). */
export interface ReportRow {
  readonly data: RowValues;
  readonly compare?: RowValues;
}

export interface ReportResponse {
  readonly data: ReportRow[];
}

/** What reports and services share: who they are, their parameters and their SQL. */
interface Definition<P, D> {
  /** Stable identifier (kebab-case): file names, the function name, logs, the manifest. */
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly parameters: readonly ParameterDefinition[];
  /** Validates the parameters; throws a PortalError (400) when they are not acceptable. */
  parseParameters(read: ParameterReader): P;
  /** Its SQL on a pool (called once per pool: once per container, again after a new login). */
  readonly queries: (sql: Sql) => D;
}

/** A report whose parameters parse to `P`, reading through its queries `D`. */
export interface ReportDefinition<P, D> extends Definition<P, D> {
  readonly properties: readonly PropertyDefinition[];
  rows(queries: D, scope: ReportScope, parameters: P): Promise<ReportRow[]>;
  /** What the CSV file name says about the parameters (e.g. the range). */
  fileNameParts(parameters: P): readonly string[];
}

/** A service (spec 2.5): answers `{ "data": B }` for one restaurant. */
export interface ServiceDefinition<P, D, B> extends Definition<P, D> {
  /** JSON Schema of `data` in the envelope (manifest, OpenAPI). */
  readonly dataSchema: Readonly<Record<string, unknown>>;
  run(queries: D, scope: ReportScope, parameters: P): Promise<B>;
}
