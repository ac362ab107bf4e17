/**
 * What the plugin knows of each report: read from the service's own definitions at build time
 * (tools/plugin/reports.ts) and baked into the bundle, so a new report appears here without
 * editing the plugin.
 */
export type Unit = 'DATE' | 'DATE_MONTH' | 'DATE_YEAR' | 'CURRENCY';

/** The languages the plugin speaks (messages/<language>.json). */
export const LANGUAGES = ['en', 'ar', 'de', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];

export interface ReportProperty {
  readonly key: string;
  /** The English name the manifest gives (spec 1); the messages translate it (`name.<English>`). */
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number';
  readonly unit?: Unit;
}

/** A report's `from`/`to` range: days or months (first days of months), both ends counted. */
export interface RangeRule {
  readonly granularity: 'day' | 'month';
  /** The longest range the API accepts (31 days; 12 months for revenue); null: no limit. */
  readonly max: number | null;
}

export interface ReportSpec {
  readonly id: string;
  /** The English title; the messages translate it (`name.<English>`). */
  readonly title: string;
  /** The /v1 path, with `{id}` for the restaurant. */
  readonly path: string;
  readonly properties: readonly ReportProperty[];
  /** Null for a report without `from`/`to` (orders today). */
  readonly range: RangeRule | null;
  /** Takes `compare[from]`/`compare[to]`. */
  readonly compare: boolean;
}

/** Build-time configuration: the API's base URL and where the restaurant currency comes from. */
export interface PluginConfig {
  readonly apiUrl: string;
  readonly reports: readonly ReportSpec[];
  /** The path of the service whose `data.currency` is the restaurant currency (the dashboard). */
  readonly currencyPath: string | null;
}
