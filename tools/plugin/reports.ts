/**
 * The reports the plugin offers, read from the catalogue at build time: each report endpoint's
 * title, /v1 path and properties (English names, units; other languages name them in the
 * plugin's message files), and its range rule found by asking the
 * report's own parameter validation (the code the API runs) which ranges it accepts, so the
 * plugin's limit cannot drift from the API's (31 days; 12 months for revenue).
 */
import type { CatalogueReport } from '../../shared/answers';
import { catalogue } from '../catalogue';
import { PortalError } from '../../shared/errors';
import type { ParameterReader } from '../../shared/http/event';
import type { PluginConfig, RangeRule, ReportSpec } from '../reports-plugin/src/reports';

/** Ranges are probed up to this many days or months; a report accepting more has no limit. */
const PROBE_LIMIT = 1000;

type Parse = (read: ParameterReader) => unknown;

const reader =
  (values: Readonly<Record<string, string>>): ParameterReader =>
  (name) => {
    const value = values[name];
    return value === undefined ? [] : [value];
  };

/** The code of the error `parse` throws for these parameters, or 'OK'. */
const outcome = (parse: Parse, values: Readonly<Record<string, string>>): string => {
  try {
    parse(reader(values));
    return 'OK';
  } catch (error) {
    if (!(error instanceof PortalError)) throw error;
    return error.entries?.[0]?.code ?? error.code;
  }
};

const START = Date.UTC(2024, 0, 1);
const dayAfter = (days: number): string =>
  new Date(START + days * 86_400_000).toISOString().slice(0, 10);
const monthAfter = (months: number): string =>
  new Date(Date.UTC(2024, months, 1)).toISOString().slice(0, 10);

/** The range rule of a report that takes `from` and `to`, found by probing its validation. */
export const probeRange = (parse: Parse): RangeRule => {
  const granularity =
    outcome(parse, { from: '2024-01-15', to: '2024-01-15' }) === 'OK' ? 'day' : 'month';
  const end = granularity === 'day' ? dayAfter : monthAfter;
  let max: number | null = null;
  for (let length = 1; length <= PROBE_LIMIT; length += 1) {
    const result = outcome(parse, { from: end(0), to: end(length - 1) });
    if (result === 'OUT_OF_RANGE') {
      max = length - 1;
      break;
    }
    if (result !== 'OK') throw new Error(`probing a ${granularity} range answered ${result}`);
  }
  return { granularity, max };
};

/**
 * The catalogue types a report by what the manifest reads; the object it holds is the whole
 * definition (shared/reports/report.ts), whose parseParameters the API runs.
 */
const parserOf = (report: CatalogueReport): Parse => {
  const parse: unknown = (report as Partial<Record<'parseParameters', unknown>>).parseParameters;
  if (typeof parse !== 'function') {
    throw new TypeError(`report ${report.id}: its definition has no parseParameters`);
  }
  return (read) => (parse as Parse).call(report, read);
};

export const pluginReports = (): ReportSpec[] =>
  catalogue.flatMap((endpoint): ReportSpec[] => {
    if (endpoint.answers.kind !== 'report') return [];
    const { report } = endpoint.answers;
    const names = new Set(report.parameters.map((parameter) => parameter.name));
    const parse = parserOf(report);
    return [
      {
        id: report.id,
        title: report.title,
        path: endpoint.paths[0],
        properties: report.properties.map(({ key, name, type, unit }) => ({
          key,
          name,
          type,
          ...(unit === undefined ? {} : { unit }),
        })),
        range: names.has('from') && names.has('to') ? probeRange(parse) : null,
        compare: names.has('compare[from]') && names.has('compare[to]'),
      },
    ];
  });

/** The service whose `data` carries the restaurant `currency` (the dashboard), if any. */
export const currencyPath = (): string | null => {
  const service = catalogue.find(
    (endpoint) =>
      endpoint.answers.kind === 'service' &&
      Object.hasOwn(
        (endpoint.answers.service.dataSchema.properties ?? {}) as Record<string, unknown>,
        'currency',
      ),
  );
  return service?.paths[0] ?? null;
};

export const pluginConfig = (apiUrl: string): PluginConfig => ({
  apiUrl: apiUrl.replace(/\/+$/, ''),
  reports: pluginReports(),
  currencyPath: currencyPath(),
});
