/**
 * What a report is (spec 1, 2.4): its properties — each with the English name the portal team
 * needs and, where it is one, its unit — its query parameters and how they are validated, and
 * how it builds its rows from its data port. One definition drives the JSON rows, the CSV
 * columns, the manifest for the portal team and the OpenAPI document.
 */
import type { QueryReader } from './query';
import type { ReportScope } from './repository';

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

/** A report with query `Q` (what its parameters parse to) reading data port `D`. */
export interface ReportDefinition<Q, D> {
  /** Stable identifier (kebab-case): logs, CSV file names, the manifest. */
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly properties: readonly PropertyDefinition[];
  readonly parameters: readonly ParameterDefinition[];
  /** Validates the query parameters; throws a PortalError (400) when they are not acceptable. */
  parseQuery(read: QueryReader): Q;
  rows(data: D, scope: ReportScope, query: Q): Promise<ReportRow[]>;
  /** What the CSV file name says about the query (e.g. its range). */
  fileNameParts(query: Q): readonly string[];
}
