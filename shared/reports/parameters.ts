/**
 * The parameters of a report request (its query string), and the day range most reports take
 * (spec 4.1, 7, 8). `from` and `to` are required calendar dates; `compare[from]`/`compare[to]`
 * are optional but come as a pair. Each range may span at most 31 days, both ends included.
 */
import { daysInRange, parseIsoDate, type DateRange, type IsoDate } from '../dates';
import type { ParameterReader } from '../http/event';
import type { ParameterDefinition } from './report';
import { cannotBeEmpty, outOfRange, validationError, type ValidationEntry } from '../errors';

export const MAX_RANGE_DAYS = 31;

/** The day-range parameters (spec 4.1), for the manifest and the OpenAPI document. */
export const DAY_RANGE_PARAMETERS: readonly ParameterDefinition[] = [
  {
    name: 'from',
    description: "First day, in the restaurant's time zone",
    required: true,
    format: 'date',
  },
  {
    name: 'to',
    description: 'Last day, included; at most 31 days after from',
    required: true,
    format: 'date',
  },
];

export const COMPARE_PARAMETERS: readonly ParameterDefinition[] = [
  {
    name: 'compare[from]',
    description: 'First day of the comparison period (with compare[to])',
    required: false,
    format: 'date',
  },
  {
    name: 'compare[to]',
    description: 'Last day of the comparison period (with compare[from])',
    required: false,
    format: 'date',
  },
];

/** The CSV file name's words for day-range parameters. */
export const rangeFileNameParts = ({ range, compare }: DayRangeParameters): string[] => [
  range.from,
  range.to,
  ...(compare ? ['vs', compare.from, compare.to] : []),
];

export interface DayRangeParameters {
  readonly range: DateRange;
  readonly compare?: DateRange;
}

export type DateField =
  { state: 'absent' } | { state: 'date'; date: IsoDate } | { state: 'invalid' };

/** Which calendar dates a parameter accepts, and what to say of one it does not. */
export interface DateRule {
  readonly accepts: (date: IsoDate) => boolean;
  readonly message: (name: string) => string;
}

export const CALENDAR_DATE: DateRule = {
  accepts: () => true,
  message: (name) => `${name} must be a calendar date in YYYY-MM-DD form`,
};

/**
 * One date parameter: absent (missing or blank), a date the rule accepts, or invalid — then
 * its entry (FIELD_REPEATED, INVALID_DATE) is added to `entries`.
 */
export const readDate = (
  name: string,
  values: readonly string[],
  entries: ValidationEntry[],
  rule: DateRule = CALENDAR_DATE,
): DateField => {
  if (values.length > 1) {
    entries.push({ field: name, code: 'FIELD_REPEATED', message: `${name} must be given once` });
    return { state: 'invalid' };
  }
  const [value = ''] = values;
  if (value.trim() === '') return { state: 'absent' };
  const date = parseIsoDate(value);
  if (date && rule.accepts(date)) return { state: 'date', date };
  entries.push({ field: name, code: 'INVALID_DATE', message: rule.message(name) });
  return { state: 'invalid' };
};

const checkOrder = (range: DateRange, fromName: string, toName: string): ValidationEntry[] =>
  range.from > range.to
    ? [
        {
          field: fromName,
          code: 'INVALID_RANGE',
          message: `${fromName} must not be after ${toName}`,
        },
      ]
    : [];

export const parseDayRange = (
  read: ParameterReader,
  { compare: allowCompare }: { compare: boolean },
): DayRangeParameters => {
  const entries: ValidationEntry[] = [];
  const from = readDate('from', read('from'), entries);
  const to = readDate('to', read('to'), entries);
  if (from.state === 'absent') entries.push(cannotBeEmpty('from'));
  if (to.state === 'absent') entries.push(cannotBeEmpty('to'));

  let compare: DateRange | undefined;
  if (allowCompare) {
    const cFrom = readDate('compare[from]', read('compare[from]'), entries);
    const cTo = readDate('compare[to]', read('compare[to]'), entries);
    if (cFrom.state === 'absent' && cTo.state !== 'absent') {
      entries.push(requiredWith('compare[from]', 'compare[to]'));
    }
    if (cTo.state === 'absent' && cFrom.state !== 'absent') {
      entries.push(requiredWith('compare[to]', 'compare[from]'));
    }
    if (cFrom.state === 'date' && cTo.state === 'date') {
      compare = { from: cFrom.date, to: cTo.date };
      entries.push(...checkOrder(compare, 'compare[from]', 'compare[to]'));
    }
  }
  if (from.state !== 'date' || to.state !== 'date') throw validationError(entries);
  const range = { from: from.date, to: to.date };
  entries.push(...checkOrder(range, 'from', 'to'));
  if (entries.length > 0) throw validationError(entries);

  if ([range, compare].some((r) => r !== undefined && daysInRange(r) > MAX_RANGE_DAYS)) {
    throw outOfRange();
  }
  return compare ? { range, compare } : { range };
};

const requiredWith = (field: string, other: string): ValidationEntry => ({
  field,
  code: 'FIELD_REQUIRED_WITH',
  message: `${field} is required when ${other} is given`,
});
