/**
 * A bar chart per measure of a time series (a report whose rows are days or months): inline
 * SVG, the comparison period's bar beside each bar of the period, time running in the reading
 * direction. The SVG is an image whose text alternative sums the series up; the table stays.
 */
import type { ReportRow } from './api';
import { formatValue, headerText, type FormatContext } from './format';
import type { ReportProperty, ReportSpec } from './reports';

const WIDTH = 480;
const HEIGHT = 186;
const TOP = 22;
const BOTTOM = 26;

/** The axis of a time series: its day or month column; undefined for other reports. */
export const timeAxis = (report: ReportSpec): ReportProperty | undefined =>
  report.range
    ? report.properties.find((p) => p.unit === 'DATE' || p.unit === 'DATE_MONTH')
    : undefined;

const numberAt = (values: Readonly<Record<string, unknown>> | undefined, key: string): number => {
  const value = values?.[key];
  return typeof value === 'number' ? value : 0;
};

/** What a series says in words: its span, total, highest and lowest (the first of equals). */
export const seriesSummary = (
  measure: ReportProperty,
  axis: ReportProperty,
  rows: readonly ReportRow[],
  context: FormatContext,
  side: 'data' | 'compare' = 'data',
): Readonly<Record<string, string>> | undefined => {
  const points = rows.flatMap((row) => {
    const values = row[side];
    const at = values?.[axis.key];
    return values && at !== undefined ? [{ at, value: numberAt(values, measure.key) }] : [];
  });
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last) return undefined;
  let max = first;
  let min = first;
  for (const point of points) {
    if (point.value > max.value) max = point;
    if (point.value < min.value) min = point;
  }
  const value = (n: number) => formatValue(measure, n, context);
  const at = (x: string | number) => formatValue(axis, x, context);
  return {
    name: headerText(measure, context),
    from: at(first.at),
    to: at(last.at),
    total: value(points.reduce((sum, point) => sum + point.value, 0)),
    max: value(max.value),
    maxAt: at(max.at),
    min: value(min.value),
    minAt: at(min.at),
  };
};

const Label = ({
  x,
  text,
  anchor,
}: {
  x: number;
  text: string;
  anchor: (x: number, text: string) => string;
}) => (
  <text x={x} y={HEIGHT - 7} text-anchor={anchor(x, text)} data-testid="reports-chart-label">
    {text}
  </text>
);

interface ChartProps {
  readonly measure: ReportProperty;
  readonly axis: ReportProperty;
  readonly rows: readonly ReportRow[];
  readonly comparing: boolean;
  readonly context: FormatContext;
  readonly rtl: boolean;
}

const Chart = ({ measure, axis, rows, comparing, context, rtl }: ChartProps) => {
  const { t } = context;
  const summary = seriesSummary(measure, axis, rows, context);
  const compared = comparing ? seriesSummary(measure, axis, rows, context, 'compare') : undefined;
  if (!summary) return null;
  const label = [
    t('chart.summary', summary),
    ...(compared ? [t('chart.compareSummary', compared)] : []),
  ].join(' ');
  const top = Math.max(
    ...rows.flatMap((row) => [numberAt(row.data, measure.key), numberAt(row.compare, measure.key)]),
    0,
  );
  const plot = HEIGHT - TOP - BOTTOM;
  const slot = WIDTH / rows.length;
  const bar = Math.max(1, slot * (comparing ? 0.38 : 0.7));
  // A phone draws the chart at about two thirds of its size: fewer, larger labels.
  const narrow = matchMedia('(max-width: 480px)').matches;
  const every = Math.ceil(rows.length / (narrow ? 4 : 8));
  const height = (n: number) => (top > 0 ? (Math.max(0, n) / top) * plot : 0);
  const place = (index: number) => (rtl ? rows.length - 1 - index : index) * slot;
  // A label centred on its bars unless that would cut it at an edge (half its width, at most
  // 0.32 em a character, further): then it starts or ends there, in the reading direction.
  const anchor = (x: number, text: string) => {
    const half = text.length * (narrow ? 16 : 11) * 0.32;
    return x < half
      ? rtl
        ? 'end'
        : 'start'
      : x > WIDTH - half
        ? rtl
          ? 'start'
          : 'end'
        : 'middle';
  };
  return (
    <figure class="rp-chart" data-testid="reports-chart" data-key={measure.key}>
      <figcaption>{headerText(measure, context)}</figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={label}
        data-testid="reports-chart-image"
      >
        {/* "start" follows the inherited direction: leftwards from the right edge in RTL. */}
        <text x={rtl ? WIDTH : 0} y={15} text-anchor="start">
          {formatValue(measure, top, context)}
        </text>
        <line x1={0} x2={WIDTH} y1={TOP} y2={TOP} class="rp-grid" />
        {rows.map((row, index) => {
          const x = place(index);
          const pair = comparing ? [row.data, row.compare] : [row.data];
          return (
            <g key={index}>
              {pair.map((values, side) => {
                const h = height(numberAt(values, measure.key));
                // The period's bar first in the reading direction; each bar 92 % wide, centred
                // in its share, so the pair's centre is the slot's (and its label's).
                const position = rtl ? pair.length - 1 - side : side;
                const offset = (slot - bar * pair.length) / 2 + (position + 0.04) * bar;
                return (
                  <rect
                    key={side}
                    class={side === 0 ? 'rp-bar' : 'rp-bar-compare'}
                    x={x + offset}
                    y={TOP + plot - h}
                    width={bar * 0.92}
                    height={h}
                  />
                );
              })}
              {index % every === 0 && (
                <Label
                  x={x + slot / 2}
                  text={formatValue(axis, row.data[axis.key], { ...context, short: true })}
                  anchor={anchor}
                />
              )}
            </g>
          );
        })}
        <line x1={0} x2={WIDTH} y1={TOP + plot} y2={TOP + plot} class="rp-axis" />
      </svg>
      {compared && (
        <p class="rp-legend" aria-hidden="true">
          <span class="rp-key" />
          {`${summary.from} – ${summary.to}`} <span class="rp-key rp-key-compare" />
          {`${compared.from} – ${compared.to}`}
        </p>
      )}
    </figure>
  );
};

/** One chart per measure of a time series; nothing for other reports. */
export const Charts = ({
  report,
  measures,
  rows,
  comparing,
  context,
  rtl,
}: {
  readonly report: ReportSpec;
  readonly measures: readonly ReportProperty[];
  readonly rows: readonly ReportRow[];
  readonly comparing: boolean;
  readonly context: FormatContext;
  readonly rtl: boolean;
}) => {
  const axis = timeAxis(report);
  if (!axis || rows.length === 0) return null;
  return (
    <div class="rp-charts">
      {measures.map((measure) => (
        <Chart
          key={measure.key}
          measure={measure}
          axis={axis}
          rows={rows}
          comparing={comparing}
          context={context}
          rtl={rtl}
        />
      ))}
    </div>
  );
};
