/**
 * Calls to the reports API with the owner's token, and what the user is told when one fails,
 * read from the error body of spec 2.6. No X-Platform-Id: a page on another origin cannot send
 * it (spec 4.3), so the API takes the token's first platform (spec 5.5).
 */
import type { MessageKey } from './i18n';
import type { DateRange } from './range';
import type { ReportSpec } from './reports';
import { compared, type Figure, type FigureKey } from './summary';

export type RowValues = Readonly<Record<string, string | number>>;
export interface ReportRow {
  readonly data: RowValues;
  readonly compare?: RowValues;
}

/** What the plugin shows for a failed call. */
export interface ReportFailure {
  readonly kind: 'session' | 'forbidden' | 'validation' | 'range' | 'other';
  readonly status: number;
  /** The sentence shown first: a message of messages/<language>.json. */
  readonly message: MessageKey;
  /** The API's own words: one line per field for a VALIDATION_ERROR, the message otherwise. */
  readonly details: readonly string[];
}

export class ReportError extends Error {
  override readonly name = 'ReportError';
  constructor(readonly failure: ReportFailure) {
    super(failure.message);
  }
}

interface ErrorBody {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly errors?: unknown;
}

const parseBody = (text: string): ErrorBody => {
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === 'object' && body !== null ? body : {};
  } catch {
    return {};
  }
};

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;

/** The failure a non-success answer stands for, from its status and error body (spec 2.6, 7). */
export const describeFailure = (status: number, bodyText: string): ReportFailure => {
  const body = parseBody(bodyText);
  const message = text(body.message);
  if (status === 401) return { kind: 'session', status, message: 'error.session', details: [] };
  // The body of a 403 ("Forbidden") adds nothing to the sentence.
  if (status === 403) return { kind: 'forbidden', status, message: 'error.forbidden', details: [] };
  if (status === 400 && body.code === 'VALIDATION_ERROR') {
    const entries = Array.isArray(body.errors) ? (body.errors as unknown[]) : [];
    const details = entries.flatMap((entry): string[] => {
      if (typeof entry !== 'object' || entry === null) return [];
      const { field, message: entryMessage } = entry as { field?: unknown; message?: unknown };
      const said = text(entryMessage);
      if (!said) return [];
      return [text(field) ? `${String(field)}: ${said}` : said];
    });
    return { kind: 'validation', status, message: 'error.validation', details };
  }
  if (status === 400 && body.code === 'OUT_OF_RANGE') {
    return { kind: 'range', status, message: 'error.range', details: message ? [message] : [] };
  }
  return { kind: 'other', status, message: 'error.other', details: message ? [message] : [] };
};

export const UNREACHABLE: ReportFailure = {
  kind: 'other',
  status: 0,
  message: 'error.unreachable',
  details: [],
};

export interface ReportQuery {
  readonly restaurantId: string;
  readonly range?: DateRange | undefined;
  readonly compare?: DateRange | undefined;
  readonly format?: 'csv';
}

/** The URL of a report for a restaurant and its parameters. */
export const reportUrl = (apiUrl: string, report: ReportSpec, query: ReportQuery): string => {
  const params = new URLSearchParams();
  if (report.range && query.range) {
    params.set('from', query.range.from);
    params.set('to', query.range.to);
  }
  if (report.compare && query.compare) {
    params.set('compare[from]', query.compare.from);
    params.set('compare[to]', query.compare.to);
  }
  if (query.format) params.set('format', query.format);
  const search = params.toString();
  return `${apiUrl}${report.path.replace('{id}', encodeURIComponent(query.restaurantId))}${
    search ? `?${search}` : ''
  }`;
};

export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** GET with the bearer token; a failed answer or a network error throws a ReportError. */
export const authorisedGet = async (
  fetchImpl: Fetch,
  url: string,
  token: string,
  signal?: AbortSignal,
): Promise<Response> => {
  let response: Response;
  try {
    response = await fetchImpl(url, {
      headers: { Authorization: `Bearer ${token}` },
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ReportError(UNREACHABLE);
  }
  if (!response.ok) throw new ReportError(describeFailure(response.status, await response.text()));
  return response;
};

export const fetchRows = async (
  fetchImpl: Fetch,
  url: string,
  token: string,
  signal?: AbortSignal,
): Promise<ReportRow[]> => {
  const response = await authorisedGet(fetchImpl, url, token, signal);
  const body = (await response.json()) as { data?: unknown };
  if (!Array.isArray(body.data)) {
    throw new ReportError({ ...UNREACHABLE, message: 'error.answer' });
  }
  return body.data as ReportRow[];
};

/** What the plugin reads of the dashboard: its currency, date and figures when well formed. */
export interface DashboardFacts {
  readonly currency: string | undefined;
  /** Today in the restaurant's time zone. */
  readonly date: string | undefined;
  /** Today so far against the same weekday a week earlier, up to the same time of day. */
  readonly figures: readonly Figure[];
  readonly compareDate: string | undefined;
}

const FIGURES: Readonly<Record<FigureKey, string>> = {
  orders: 'orders',
  sales: 'revenue',
  average: 'averageOrderValue',
  cancelled: 'cancellationRate',
};
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
const day = (value: unknown) =>
  typeof value === 'string' && ISO_DAY.test(value) ? value : undefined;

export const fetchDashboard = async (
  fetchImpl: Fetch,
  url: string,
  token: string,
  signal?: AbortSignal,
): Promise<DashboardFacts> => {
  const response = await authorisedGet(fetchImpl, url, token, signal);
  const data = ((await response.json()) as { data?: Record<string, unknown> }).data ?? {};
  const value: Partial<Record<FigureKey, number>> = {};
  const base: Partial<Record<FigureKey, number>> = {};
  for (const [key, field] of Object.entries(FIGURES) as [FigureKey, string][]) {
    const pair = data[field] as { value?: unknown; compare?: unknown } | undefined;
    if (typeof pair?.value === 'number' && typeof pair.compare === 'number') {
      value[key] = pair.value;
      base[key] = pair.compare;
    }
  }
  const { currency } = data;
  return {
    currency: typeof currency === 'string' && /^[A-Z]{3}$/.test(currency) ? currency : undefined,
    date: day(data.date),
    figures: compared(value, base),
    compareDate: day(data.compareDate),
  };
};

/** The file name of a Content-Disposition header (`attachment; filename="…"`). */
export const fileNameOf = (disposition: string | null, fallback: string): string => {
  const match = disposition ? /filename="([^"]+)"/i.exec(disposition) : null;
  return match?.[1] ?? fallback;
};
