/**
 * The plugin's views: the controls (report, period, comparison, CSV download) the portal
 * renders as sticky content, and the report table. Both read the same stores.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useMemo, useState } from 'preact/hooks';
import { authorisedGet, fetchRows, fileNameOf, reportUrl, ReportError, UNREACHABLE } from './api';
import type { Fetch, ReportFailure, ReportRow } from './api';
import { Charts, timeAxis } from './chart';
import { spreadsheetCsv } from './csv';
import {
  formatValue,
  hasData,
  headerText,
  localName,
  minorUnits,
  shownProperties,
  type FormatContext,
} from './format';
import type { MessageKey, Speech, Translate } from './i18n';
import {
  comparisonProblem,
  latestEnd,
  presetsFor,
  rangeProblem,
  type DateRange,
  type RangeProblem,
} from './range';
import type { ReportProperty, ReportSpec } from './reports';
import {
  choosePreset,
  followPeriod,
  selectReport,
  type PluginState,
  type Selection,
} from './state';
import type { Store } from './store';
import { sumOf, summaryFigures, type Figure, type FigureKey } from './summary';

/** How long typing must pause before a changed report is asked for. */
export const SETTLE_MS = 400;

export interface PluginContext {
  readonly apiUrl: string;
  readonly reports: readonly ReportSpec[];
  readonly state: PluginState;
  readonly getToken: () => string;
  readonly speech: Speech;
  readonly fetch: Fetch;
}

export const useStore = <T,>(store: Store<T>): T => {
  const [value, setValue] = useState(store.get());
  useEffect(() => {
    setValue(store.get());
    return store.subscribe(setValue);
  }, [store]);
  return value;
};

const reportOf = (reports: readonly ReportSpec[], id: string): ReportSpec =>
  reports.find((report) => report.id === id) ?? (reports[0] as ReportSpec);

/** Why the selection cannot be asked for, and for which period, or undefined. */
export const selectionProblem = (
  report: ReportSpec,
  selection: Selection,
): { readonly period: MessageKey; readonly problem: RangeProblem } | undefined => {
  if (!report.range) return undefined;
  const problem = rangeProblem(selection.range, report.range);
  if (problem) return { period: 'period', problem };
  const compared =
    report.compare && selection.compareOn
      ? comparisonProblem(selection.compare, selection.range, report.range)
      : undefined;
  return compared ? { period: 'comparisonPeriod', problem: compared } : undefined;
};

const problemText = (
  t: Translate,
  { period, problem }: NonNullable<ReturnType<typeof selectionProblem>>,
) =>
  t(`range.${problem.code}`, {
    period: t(period),
    ...('max' in problem ? { max: problem.max } : {}),
  });

/** Input value ↔ API date: a month input holds YYYY-MM, the API wants YYYY-MM-01. */
const toInput = (date: string, month: boolean): string => (month ? date.slice(0, 7) : date);
const fromInput = (value: string, month: boolean): string =>
  month && /^\d{4}-\d{2}$/.test(value) ? `${value}-01` : value;

interface RangeInputsProps {
  readonly report: ReportSpec;
  readonly range: DateRange;
  readonly onChange: (range: DateRange) => void;
  readonly testId: string;
  readonly label: MessageKey;
  /** Shows the group's name (the comparison, below the period's own inputs). */
  readonly named?: boolean;
  readonly t: Translate;
}

/** A label and its control, side by side in the reading direction. */
const Field = ({
  id,
  label,
  children,
}: {
  id: string;
  label: string;
  children: ComponentChildren;
}) => (
  <span class="rp-field">
    <label for={id}>{label}</label>
    {children}
  </span>
);

const RangeInputs = ({ report, range, onChange, testId, label, named, t }: RangeInputsProps) => {
  const id = useId();
  const rule = report.range;
  if (!rule) return null;
  const month = rule.granularity === 'month';
  const type = month ? 'month' : 'date';
  const max = latestEnd(range.from, rule);
  return (
    <span
      class="rp-range"
      role="group"
      aria-labelledby={named ? `${id}n` : undefined}
      aria-label={named ? undefined : t(label)}
    >
      {named && <span id={`${id}n`}>{t(label)}</span>}
      <Field id={`${id}f`} label={t('from')}>
        <input
          id={`${id}f`}
          type={type}
          data-testid={`${testId}-from`}
          value={toInput(range.from, month)}
          onInput={(event) => {
            onChange({ ...range, from: fromInput(event.currentTarget.value, month) });
          }}
        />
      </Field>
      <Field id={`${id}t`} label={t('to')}>
        <input
          id={`${id}t`}
          type={type}
          data-testid={`${testId}-to`}
          value={toInput(range.to, month)}
          min={toInput(range.from, month)}
          {...(max ? { max: toInput(max, month) } : {})}
          onInput={(event) => {
            onChange({ ...range, to: fromInput(event.currentTarget.value, month) });
          }}
        />
      </Field>
    </span>
  );
};

/**
 * Fetches the CSV with the token and saves it, made for spreadsheets (csv.ts), under the name
 * the API gives.
 */
const downloadCsv = async (context: PluginContext, report: ReportSpec, selection: Selection) => {
  const restaurant = context.state.restaurant.get();
  if (!restaurant) return;
  const url = reportUrl(context.apiUrl, report, {
    restaurantId: restaurant.id,
    range: selection.range,
    compare: selection.compareOn ? selection.compare : undefined,
    format: 'csv',
  });
  const response = await authorisedGet(context.fetch, url, context.getToken());
  const currency = context.state.currency.get();
  const digits =
    currency?.restaurantId === restaurant.id && currency.currency
      ? minorUnits(currency.currency)
      : undefined;
  const text = spreadsheetCsv(await response.text(), report.properties, digits, {
    locale: context.speech.locale,
    t: context.speech.t,
    currency: currency?.restaurantId === restaurant.id ? currency.currency : undefined,
  });
  const blob = new Blob([text], { type: 'text/csv;charset=utf-8' });
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = fileNameOf(response.headers.get('Content-Disposition'), `${report.id}.csv`);
  link.style.display = 'none';
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => {
    URL.revokeObjectURL(link.href);
  }, 0);
};

const FailureView = ({
  failure,
  testId,
  t,
}: {
  failure: ReportFailure;
  testId: string;
  t: Translate;
}) => (
  <div class="rp-error" role="alert" data-testid={testId} data-kind={failure.kind}>
    <p>{t(failure.message, { status: failure.status })}</p>
    {failure.details.length > 0 && (
      // The service's own words are English: kept for whoever needs them, folded away.
      <details data-testid={`${testId}-details`}>
        <summary>{t('error.details')}</summary>
        <ul lang="en" dir="ltr">
          {failure.details.map((detail) => (
            <li key={detail}>{detail}</li>
          ))}
        </ul>
      </details>
    )}
  </div>
);

const asFailure = (error: unknown): ReportFailure =>
  error instanceof ReportError ? error.failure : UNREACHABLE;

export const Controls = ({ context }: { context: PluginContext }) => {
  const { reports, state, speech } = context;
  const { t } = speech;
  const id = useId();
  const selection = useStore(state.selection);
  const today = useStore(state.today);
  const report = reportOf(reports, selection.reportId);
  const presets = report.range ? presetsFor(report.range, today) : [];
  const problem = selectionProblem(report, selection);
  const [open, setOpen] = useState(false);
  const [downloading, setDownloading] = useState(false);
  const [downloadFailure, setDownloadFailure] = useState<ReportFailure | undefined>();
  const update = (change: Partial<Selection>) => {
    state.selection.set({ ...state.selection.get(), ...change });
  };
  return (
    <div
      class={open ? 'rp-controls' : 'rp-controls rp-folded'}
      dir={speech.dir}
      lang={speech.lang}
      role="group"
      aria-label={t('controls')}
      data-testid="reports-controls"
    >
      {/* On a phone the controls fold to this one line: the report and its period. */}
      <button
        type="button"
        class="rp-fold"
        aria-expanded={open}
        data-testid="reports-fold"
        onClick={() => {
          setOpen(!open);
        }}
      >
        {[
          localName(t, report.title),
          selection.preset
            ? t(`preset.${selection.preset}`)
            : report.range &&
              [selection.range.from, selection.range.to]
                .map((date) => periodDate(date, { locale: speech.locale, t, short: true }, report))
                .join(' – '),
        ]
          .filter(Boolean)
          .join(' · ')}
      </button>
      <Field id={`${id}r`} label={t('report')}>
        <select
          id={`${id}r`}
          data-testid="reports-picker"
          value={report.id}
          onChange={(event) => {
            const next = reportOf(reports, event.currentTarget.value);
            state.selection.set(selectReport(next, today, state.selection.get(), report));
          }}
        >
          {reports.map((option) => (
            <option key={option.id} value={option.id}>
              {localName(t, option.title)}
            </option>
          ))}
        </select>
      </Field>
      {presets.length > 0 && (
        <Field id={`${id}p`} label={t('preset')}>
          <select
            id={`${id}p`}
            data-testid="reports-preset"
            value={selection.preset ?? ''}
            onChange={(event) => {
              const value = event.currentTarget.value;
              const preset = presets.find((candidate) => candidate === value);
              if (preset && report.range) {
                state.selection.set(
                  choosePreset(state.selection.get(), preset, state.today.get(), report.range),
                );
              }
            }}
          >
            {!selection.preset && <option value="">{t('preset.custom')}</option>}
            {presets.map((preset) => (
              <option key={preset} value={preset}>
                {t(`preset.${preset}`)}
              </option>
            ))}
          </select>
        </Field>
      )}
      <RangeInputs
        report={report}
        range={selection.range}
        label="period"
        testId="reports"
        t={t}
        onChange={(range) => {
          // RangeInputs draws nothing for a report without a range.
          if (report.range) {
            state.selection.set(followPeriod(state.selection.get(), { range }, report.range));
          }
        }}
      />
      {report.compare && report.range && (
        <span class="rp-field">
          <input
            id={`${id}c`}
            type="checkbox"
            data-testid="reports-compare-toggle"
            checked={selection.compareOn}
            onChange={(event) => {
              const next = { ...state.selection.get(), compareOn: event.currentTarget.checked };
              // Switched on, the comparison starts where it follows the period.
              state.selection.set(
                next.compareOn && report.range ? followPeriod(next, {}, report.range) : next,
              );
            }}
          />
          <label for={`${id}c`}>{t('compare')}</label>
        </span>
      )}
      {report.compare && report.range && selection.compareOn && (
        <Field id={`${id}m`} label={t('compareWith')}>
          <select
            id={`${id}m`}
            data-testid="reports-compare-mode"
            value={selection.compareMode}
            onChange={(event) => {
              const value = event.currentTarget.value;
              const compareMode =
                value === 'year' || value === 'weekday' ? value : ('previous' as const);
              if (report.range) {
                state.selection.set(
                  followPeriod(state.selection.get(), { compareMode }, report.range),
                );
              }
            }}
          >
            <option value="previous">{t('compare.previous')}</option>
            <option value="year">{t('compare.year')}</option>
            <option value="weekday">{t('compare.weekday')}</option>
          </select>
        </Field>
      )}
      {report.compare && report.range && selection.compareOn && (
        <RangeInputs
          report={report}
          range={selection.compare}
          label="comparisonPeriod"
          named
          testId="reports-compare"
          t={t}
          onChange={(compare) => {
            update({ compare });
          }}
        />
      )}
      <button
        type="button"
        data-testid="reports-download"
        disabled={problem !== undefined}
        // Not disabled while the download runs: a disabled button would lose the focus.
        aria-disabled={downloading ? 'true' : undefined}
        onClick={() => {
          if (downloading) return;
          setDownloading(true);
          setDownloadFailure(undefined);
          downloadCsv(context, report, selection)
            .catch((error: unknown) => {
              setDownloadFailure(asFailure(error));
            })
            .finally(() => {
              setDownloading(false);
            });
        }}
      >
        {t('download')}
      </button>
      {problem && (
        <p class="rp-problem" role="alert" data-testid="reports-range-message">
          {problemText(t, problem)}
        </p>
      )}
      {downloadFailure && (
        <FailureView failure={downloadFailure} testId="reports-download-error" t={t} />
      )}
    </div>
  );
};

/** The answer to one URL; a view shows it only while that URL is still the one asked for. */
type Load =
  | { readonly state: 'failed'; readonly key: string; readonly failure: ReportFailure }
  | { readonly state: 'done'; readonly key: string; readonly rows: readonly ReportRow[] };

/** A period's end as the period inputs count it: a day, or a month. */
const periodDate = (date: string, context: FormatContext, report: ReportSpec): string =>
  formatValue(
    {
      key: '',
      name: '',
      type: 'string',
      unit: report.range?.granularity === 'month' ? 'DATE_MONTH' : 'DATE',
    },
    date,
    context,
  );

const percent = (locale: string, sign = false) =>
  new Intl.NumberFormat(locale, {
    style: 'percent',
    maximumFractionDigits: 1,
    signDisplay: sign ? 'exceptZero' : 'auto',
  });

const MONEY: ReportProperty = { key: '', name: '', type: 'number', unit: 'CURRENCY' };

/** A figure's name and value in the owner's words and numbers. */
const figureText = (key: FigureKey, value: number, context: FormatContext) =>
  key === 'cancelled'
    ? percent(context.locale).format(value)
    : formatValue(
        key === 'orders' ? { ...MONEY, type: 'integer', unit: undefined } : MONEY,
        value,
        context,
      );

const figureName = (key: FigureKey, context: FormatContext) =>
  key === 'orders' || key === 'cancelled'
    ? key === 'orders'
      ? localName(context.t, 'Orders')
      : context.t('card.cancelled')
    : headerText(
        { ...MONEY, name: key === 'sales' ? 'Sales' : context.t('card.average') },
        context,
      );

/** A card per figure, with the comparison's figure and the change ▲/▼ against it. */
const Cards = ({
  figures,
  label,
  testId,
  context,
}: {
  readonly figures: readonly Figure[];
  readonly label: string;
  readonly testId: string;
  readonly context: FormatContext;
}) => (
  <section class="rp-cards" aria-label={label} data-testid={testId}>
    <h3>{label}</h3>
    <ul>
      {figures.map(({ key, value, compare }) => (
        <li key={key} class="rp-card" data-testid="reports-card" data-key={key}>
          <span>{figureName(key, context)}</span>
          <strong data-testid="reports-card-value">{figureText(key, value, context)}</strong>
          {compare && (
            <span>
              <span data-testid="reports-card-change">
                {compare.change ? (
                  <span aria-hidden="true">{compare.change > 0 ? '▲ ' : '▼ '}</span>
                ) : null}
                {compare.change === null
                  ? '–'
                  : percent(context.locale, true).format(compare.change)}
              </span>{' '}
              <span data-testid="reports-card-compare">
                {context.t('card.compare', { value: figureText(key, compare.value, context) })}
              </span>
            </span>
          )}
        </li>
      ))}
    </ul>
  </section>
);

/** The top dishes by sales (the API's order), each bar its share of all dishes' sales. */
const Sellers = ({
  rows,
  sales,
  context,
}: {
  readonly rows: readonly ReportRow[];
  readonly sales: string;
  readonly context: FormatContext;
}) => {
  const total = sumOf(rows, sales);
  return (
    <figure class="rp-chart" data-testid="reports-sellers">
      <figcaption>{context.t('sellers')}</figcaption>
      <ol class="rp-sellers">
        {rows.slice(0, 8).map((row, index) => {
          const share = total ? sumOf([row], sales) / total : 0;
          return (
            <li key={index} data-testid="reports-seller">
              <span>{String(row.data.name)}</span>
              <span>
                <span class="rp-hbar" style={{ width: `${share * 100}%` }} />
              </span>
              <span data-testid="reports-share">{percent(context.locale).format(share)}</span>
            </li>
          );
        })}
      </ol>
    </figure>
  );
};

export const ReportView = ({ context }: { context: PluginContext }) => {
  const { reports, state, speech } = context;
  const { t, locale } = speech;
  const id = useId();
  const restaurant = useStore(state.restaurant);
  const selection = useStore(state.selection);
  const currencyState = useStore(state.currency);
  const report = reportOf(reports, selection.reportId);
  const problem = selectionProblem(report, selection);
  const compare = report.compare && selection.compareOn ? selection.compare : undefined;
  const url =
    restaurant && !problem
      ? reportUrl(context.apiUrl, report, {
          restaurantId: restaurant.id,
          range: selection.range,
          compare,
        })
      : undefined;
  const [answer, setAnswer] = useState<Load | undefined>();
  // The URL asked for once the selection has rested: a date typed digit by digit is one request.
  const [asked, setAsked] = useState<string | undefined>();
  useEffect(() => {
    const timer = setTimeout(
      () => {
        setAsked(url);
      },
      asked === undefined ? 0 : SETTLE_MS,
    );
    return () => {
      clearTimeout(timer);
    };
  }, [url]);

  useEffect(() => {
    if (!asked) return undefined;
    const url = asked;
    const controller = new AbortController();
    fetchRows(context.fetch, url, context.getToken(), controller.signal).then(
      (rows) => {
        if (!controller.signal.aborted) setAnswer({ state: 'done', key: url, rows });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) {
          setAnswer({ state: 'failed', key: url, failure: asFailure(error) });
        }
      },
    );
    return () => {
      controller.abort();
    };
  }, [asked]);

  // An answer to an earlier URL (another restaurant, report or period) is never shown.
  const loading = url !== undefined && answer?.key !== url;
  const shown = url !== undefined && answer?.key === url ? answer : undefined;

  const formatContext: FormatContext = useMemo(
    () => ({
      locale,
      t,
      currency:
        restaurant && currencyState?.restaurantId === restaurant.id
          ? currencyState.currency
          : undefined,
    }),
    [locale, t, restaurant, currencyState],
  );

  const comparing = compare !== undefined;
  const today =
    restaurant && currencyState?.restaurantId === restaurant.id ? currencyState.today : undefined;
  const properties = shownProperties(report);
  const rows = shown?.state === 'done' ? shown.rows : undefined;
  const filled = rows !== undefined && hasData(report, rows);
  const axis = timeAxis(report);
  return (
    <div
      class="rp-root"
      dir={speech.dir}
      lang={speech.lang}
      data-testid="reports-root"
      data-report={report.id}
      data-restaurant={restaurant?.id ?? ''}
    >
      <h2 class="rp-title" id={`${id}h`}>
        {localName(t, report.title)}
      </h2>
      {report.range && (
        // Shown in print only, where the controls are not.
        <p class="rp-period" data-testid="reports-period">
          {[
            [t('period'), selection.range] as const,
            ...(compare ? [[t('comparisonPeriod'), compare] as const] : []),
          ]
            .map(
              ([name, { from, to }]) =>
                `${name}: ${periodDate(from, formatContext, report)} – ${periodDate(to, formatContext, report)}`,
            )
            .join('; ')}
        </p>
      )}
      {loading && (
        <p class="rp-loading" role="status" aria-live="polite" data-testid="reports-loading">
          {t('loading')}
        </p>
      )}
      {shown?.state === 'failed' && (
        <FailureView failure={shown.failure} testId="reports-error" t={t} />
      )}
      {rows && !filled && (
        <p class="rp-empty" role="status" data-testid="reports-empty">
          {t('empty')}
        </p>
      )}
      {today && (
        <Cards
          figures={today.figures}
          label={t('card.today', {
            date: formatValue(
              { ...MONEY, type: 'string', unit: 'DATE' },
              today.compareDate,
              formatContext,
            ),
          })}
          testId="reports-today"
          context={formatContext}
        />
      )}
      {rows && filled && (
        <Cards
          figures={summaryFigures(properties, rows, comparing)}
          label={t('card.totals')}
          testId="reports-cards"
          context={formatContext}
        />
      )}
      {rows && filled && (
        <Charts
          report={report}
          measures={properties.filter((p) => p.type !== 'string' && p !== axis)}
          rows={rows}
          comparing={comparing}
          context={formatContext}
          rtl={speech.dir === 'rtl'}
        />
      )}
      {rows && filled && report.properties.some((p) => p.key === 'name') && (
        <Sellers rows={rows} sales="revenue" context={formatContext} />
      )}
      {rows && filled && (
        // Scrolls by itself, in either direction, when the columns are wider than the screen.
        <div
          class="rp-scroll"
          role="region"
          tabIndex={0}
          aria-labelledby={`${id}h`}
          data-testid="reports-table-scroll"
        >
          <table class="rp-table" data-testid="reports-table" aria-labelledby={`${id}h`}>
            <thead>
              <tr>
                {properties.map((property) => [
                  <th
                    key={property.key}
                    class={property.type === 'string' ? undefined : 'rp-num'}
                    scope="col"
                    data-testid="reports-header"
                    data-key={property.key}
                  >
                    {headerText(property, formatContext)}
                  </th>,
                  comparing && (
                    <th
                      key={`${property.key}-compare`}
                      class={property.type === 'string' ? undefined : 'rp-num'}
                      scope="col"
                      data-testid="reports-header"
                      data-key={`${property.key}:compare`}
                    >
                      {headerText(property, formatContext, true)}
                    </th>
                  ),
                ])}
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => (
                <tr key={index} data-testid="reports-row">
                  {properties.map((property) => [
                    <td
                      key={property.key}
                      class={property.type === 'string' ? undefined : 'rp-num'}
                      data-key={property.key}
                      data-testid="reports-cell"
                    >
                      {formatValue(property, row.data[property.key], formatContext)}
                    </td>,
                    comparing && (
                      <td
                        key={`${property.key}-compare`}
                        class={property.type === 'string' ? undefined : 'rp-num'}
                        data-key={`${property.key}:compare`}
                        data-testid="reports-cell"
                      >
                        {formatValue(property, row.compare?.[property.key], formatContext)}
                      </td>
                    ),
                  ])}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
};
