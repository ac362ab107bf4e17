/**
 * CloudWatch's side of an alarm, for the arithmetic the template's alarms hold: each metric
 * summed over the alarm's sliding window (its Period, ending at the minute evaluated) from
 * per-minute datapoints, and the metric-math expressions our alarms use (numbers, metric ids,
 * `+ - * /`, comparisons, IF and FILL) evaluated over those sums.
 */

/** An alarm as the template declares it, with the parts evaluated here. */
export interface AlarmProperties {
  /** A metric-math alarm: its queries, one returning the value judged. */
  readonly Metrics?: readonly {
    readonly Id: string;
    readonly Expression?: string;
    readonly ReturnData?: boolean;
    readonly MetricStat?: { readonly Period: number; readonly Stat: string };
  }[];
  /** A single-metric alarm: its statistic and period (its datapoints under the id `value`). */
  readonly Statistic?: string;
  readonly Period?: number;
  readonly Threshold: number;
  readonly ComparisonOperator: string;
  readonly EvaluationPeriods: number;
  readonly DatapointsToAlarm?: number;
  readonly TreatMissingData?: string;
}

type Value = number | undefined;

/** Evaluates `expression` with `values` for its metric ids; undefined is a missing datapoint. */
export const evaluate = (expression: string, values: Readonly<Record<string, Value>>): Value => {
  const tokens = expression.match(/\d+(?:\.\d+)?|[A-Za-z_]\w*|>=|<=|[-+*/(),<>]/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const take = (expected?: string) => {
    const token = tokens[at++];
    if (token === undefined || (expected !== undefined && token !== expected)) {
      throw new SyntaxError(`expected ${expected ?? 'a token'} at ${at} in ${expression}`);
    }
    return token;
  };
  const binary =
    (next: () => Value, operators: Readonly<Record<string, (a: number, b: number) => number>>) =>
    (): Value => {
      let left = next();
      while (peek() !== undefined && peek()! in operators) {
        const apply = operators[take()]!;
        const right = next();
        left = left === undefined || right === undefined ? undefined : apply(left, right);
      }
      return left;
    };
  const primary = (): Value => {
    const token = take();
    if (token === '(') {
      const value = comparison();
      take(')');
      return value;
    }
    if (/^\d/.test(token)) return Number(token);
    if (token === 'IF' || token === 'FILL') {
      take('(');
      const args: Value[] = [comparison()];
      while (peek() === ',') {
        take(',');
        args.push(comparison());
      }
      take(')');
      if (token === 'FILL') return args[0] ?? args[1];
      return args[0] === undefined ? undefined : args[0] !== 0 ? args[1] : args[2];
    }
    if (!(token in values)) throw new ReferenceError(`${token} is no metric of the alarm`);
    return values[token];
  };
  const product = binary(primary, { '*': (a, b) => a * b, '/': (a, b) => a / b });
  const sum = binary(product, { '+': (a, b) => a + b, '-': (a, b) => a - b });
  const comparison = binary(sum, {
    '>=': (a, b) => Number(a >= b),
    '<=': (a, b) => Number(a <= b),
    '>': (a, b) => Number(a > b),
    '<': (a, b) => Number(a < b),
  });
  const value = comparison();
  if (at !== tokens.length) throw new SyntaxError(`unexpected ${peek()} in ${expression}`);
  return value;
};

const STATISTICS: Readonly<Record<string, (values: readonly number[]) => number>> = {
  Sum: (values) => values.reduce((sum, v) => sum + v, 0),
  Minimum: (values) => Math.min(...values),
  Maximum: (values) => Math.max(...values),
};

const COMPARISONS: Readonly<Record<string, (value: number, threshold: number) => boolean>> = {
  GreaterThanOrEqualToThreshold: (value, threshold) => value >= threshold,
  GreaterThanThreshold: (value, threshold) => value > threshold,
  LessThanThreshold: (value, threshold) => value < threshold,
  LessThanOrEqualToThreshold: (value, threshold) => value <= threshold,
};

/**
 * Whether the alarm is in ALARM at each minute of `minutes` (each minute's datapoints by metric
 * id, `value` for a single-metric alarm; a missing id or minute is no datapoint): of the last
 * EvaluationPeriods windows, each aggregating its Period before the minute, DatapointsToAlarm
 * (all, when unset) breaching, a missing one counted as TreatMissingData says.
 */
export const alarmStates = (
  alarm: AlarmProperties,
  minutes: readonly Readonly<Record<string, number>>[],
): boolean[] => {
  const queries = alarm.Metrics ?? [
    { Id: 'value', MetricStat: { Period: alarm.Period ?? 60, Stat: alarm.Statistic ?? 'Sum' } },
  ];
  const stats = queries.filter((m) => m.MetricStat);
  const periods = new Set(stats.map((m) => m.MetricStat!.Period));
  if (periods.size !== 1 || stats.some((m) => !(m.MetricStat!.Stat in STATISTICS))) {
    throw new TypeError('alarmStates aggregates one period, by Sum, Minimum or Maximum');
  }
  const window = [...periods][0]! / 60;
  const [result] = queries.filter((m) => m.ReturnData !== false);
  const expressions = queries.filter((m) => m.Expression && m !== result);
  const datapoint = (end: number): Value => {
    const values: Record<string, Value> = {};
    for (const { Id, MetricStat } of stats) {
      const seen = minutes
        .slice(Math.max(0, end - window + 1), end + 1)
        .flatMap((m) => (Id in m ? [m[Id]!] : []));
      values[Id] = seen.length === 0 ? undefined : STATISTICS[MetricStat!.Stat]!(seen);
    }
    for (const { Id, Expression } of expressions) values[Id] = evaluate(Expression!, values);
    return result?.Expression ? evaluate(result.Expression, values) : values[result?.Id ?? ''];
  };
  const compare = COMPARISONS[alarm.ComparisonOperator];
  if (!compare) throw new TypeError(`alarmStates does not know ${alarm.ComparisonOperator}`);
  const missing = alarm.TreatMissingData ?? 'missing';
  if (missing !== 'breaching' && missing !== 'notBreaching') {
    throw new TypeError(`alarmStates judges missing data as breaching or notBreaching only`);
  }
  const breaching = (value: Value) =>
    value === undefined ? missing === 'breaching' : compare(value, alarm.Threshold);
  const needed = alarm.DatapointsToAlarm ?? alarm.EvaluationPeriods;
  return minutes.map((_, end) => {
    const judged = Array.from(
      { length: alarm.EvaluationPeriods },
      (__, back) => end - back * window,
    );
    if (judged.some((last) => last < 0)) return false;
    return judged.filter((last) => breaching(datapoint(last))).length >= needed;
  });
};
