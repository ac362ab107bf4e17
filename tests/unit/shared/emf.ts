/**
 * A checker of CloudWatch embedded-metric-format documents, from the specification: one JSON
 * object whose `_aws` holds exactly Timestamp (epoch ms) and a non-empty CloudWatchMetrics of
 * directives (exactly Namespace, Dimensions, Metrics; at most 100 metrics, 30 keys per dimension
 * set), every metric a number member of the line and every dimension key a string member. And
 * the directives a request line carries, as the contract declares them.
 */

/** CloudWatch's standard units (those a MetricDefinition's `Unit` may name). */
const SIZES = [
  'Bytes',
  'Bits',
  ...['Kilo', 'Mega', 'Giga', 'Tera'].flatMap((p) => [`${p}bytes`, `${p}bits`]),
];
const UNITS = new Set([
  ...['Seconds', 'Microseconds', 'Milliseconds', 'Percent', 'Count', 'Count/Second', 'None'],
  ...SIZES,
  ...SIZES.map((size) => `${size}/Second`),
]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const sameKeys = (value: Record<string, unknown>, keys: readonly string[]): boolean =>
  Object.keys(value).sort().join() === [...keys].sort().join();

/** What makes `line` no valid EMF document; empty when it is one. */
export const emfProblems = (line: string): string[] => {
  let document: unknown;
  try {
    document = JSON.parse(line);
  } catch {
    return ['not JSON'];
  }
  if (!isObject(document)) return ['not a JSON object'];
  const aws = document._aws;
  if (!isObject(aws)) return ['no _aws object'];
  const problems: string[] = [];
  if (!sameKeys(aws, ['Timestamp', 'CloudWatchMetrics'])) {
    problems.push('_aws holds other members than Timestamp and CloudWatchMetrics');
  }
  if (!Number.isSafeInteger(aws.Timestamp) || (aws.Timestamp as number) < 0) {
    problems.push('Timestamp is not epoch milliseconds');
  }
  const directives = aws.CloudWatchMetrics;
  if (!Array.isArray(directives) || directives.length === 0) {
    return [...problems, 'CloudWatchMetrics is not a non-empty array'];
  }
  directives.forEach((directive: unknown, index) => {
    const at = `directive ${index}`;
    if (!isObject(directive)) return void problems.push(`${at} is not an object`);
    if (!sameKeys(directive, ['Namespace', 'Dimensions', 'Metrics'])) {
      problems.push(`${at} holds other members than Namespace, Dimensions and Metrics`);
    }
    const { Namespace: namespace, Dimensions: dimensions, Metrics: metrics } = directive;
    if (typeof namespace !== 'string' || namespace.length < 1 || namespace.length > 255) {
      problems.push(`${at}: Namespace is not 1 to 255 characters`);
    }
    if (!Array.isArray(dimensions)) problems.push(`${at}: Dimensions is not an array`);
    else {
      for (const set of dimensions as unknown[]) {
        if (!Array.isArray(set)) problems.push(`${at}: a dimension set is not an array`);
        else if (set.length > 30) problems.push(`${at}: a dimension set holds over 30 keys`);
        else {
          for (const key of set as unknown[]) {
            if (typeof key !== 'string') problems.push(`${at}: a dimension key is not a string`);
            else if (typeof document[key] !== 'string' || document[key] === '') {
              problems.push(`${at}: dimension ${key} is not a string member of the line`);
            }
          }
        }
      }
    }
    if (!Array.isArray(metrics) || metrics.length === 0 || metrics.length > 100) {
      return void problems.push(`${at}: Metrics is not an array of 1 to 100 definitions`);
    }
    const names = new Set<string>();
    for (const metric of metrics as unknown[]) {
      if (!isObject(metric) || typeof metric.Name !== 'string' || metric.Name === '') {
        problems.push(`${at}: a metric definition has no Name`);
        continue;
      }
      if (Object.keys(metric).some((key) => !['Name', 'Unit', 'StorageResolution'].includes(key))) {
        problems.push(`${at}: metric ${metric.Name} holds an unknown member`);
      }
      if (metric.Unit !== undefined && !UNITS.has(metric.Unit as string)) {
        problems.push(`${at}: metric ${metric.Name} has no CloudWatch unit`);
      }
      if (names.has(metric.Name)) problems.push(`${at}: metric ${metric.Name} is listed twice`);
      names.add(metric.Name);
      const value = document[metric.Name];
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        problems.push(`${at}: metric ${metric.Name} is not a number member of the line`);
      }
    }
  });
  return problems;
};

/** The line parsed, once `emfProblems` found nothing wrong with it. */
export const parseEmf = (line: string): Record<string, unknown> => {
  const problems = emfProblems(line);
  if (problems.length > 0) throw new Error(`not an EMF document: ${problems.join('; ')}`);
  return JSON.parse(line) as Record<string, unknown>;
};

/**
 * The `_aws` directives of a request line (its Timestamp aside) in the default namespace: the
 * request and its latency per service, and per route and status class when `byRoute`; the
 * container's counters per service.
 */
export const requestDirectives = (byRoute = true) => [
  {
    Namespace: 'PortalServiceApi',
    Dimensions: byRoute
      ? [
          ['Service'],
          ['Service', 'Route', 'StatusClass'],
          ['Service', 'FunctionName', 'Version', 'StatusClass'],
        ]
      : [['Service']],
    Metrics: [
      { Name: 'Requests', Unit: 'Count' },
      { Name: 'Latency', Unit: 'Milliseconds' },
    ],
  },
  {
    Namespace: 'PortalServiceApi',
    Dimensions: [['Service']],
    Metrics: [
      { Name: 'ColdStarts', Unit: 'Count' },
      { Name: 'KeySetFailures', Unit: 'Count' },
      { Name: 'DatabaseErrors', Unit: 'Count' },
    ],
  },
];
