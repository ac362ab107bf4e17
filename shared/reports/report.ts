/**
 * What a report is: its properties (spec 1: an English name per property and, where it is
 * one, its unit; spec 2.4) and how it builds its rows from the data port.
 */
import type { ReportQuery } from './query';
import type { ReportRepository, ReportScope } from './repository';

export type Unit = 'DATE' | 'DATE_MONTH' | 'DATE_YEAR' | 'CURRENCY';

export interface PropertyDefinition {
  readonly key: string;
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number';
  readonly unit?: Unit;
}

export type RowValues = Readonly<Record<string, string | number>>;

/** One row of the report response (spec 2.4). */
export interface ReportRow {
  readonly data: RowValues;
  readonly compare?: RowValues;
}

export interface ReportDefinition {
  /** Stable identifier, used in logs and file names. */
  readonly id: string;
  readonly title: string;
  readonly properties: readonly PropertyDefinition[];
  /** Whether the report accepts `compare[from]`/`compare[to]`. */
  readonly comparable: boolean;
  readonly rows: (
    repository: ReportRepository,
    scope: ReportScope,
    query: ReportQuery,
  ) => Promise<ReportRow[]>;
}

export interface ReportResponse {
  readonly data: ReportRow[];
}
