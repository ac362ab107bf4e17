/** The query parameters a client sent, as the report steps read them (shared/http/event.ts). */
import type { ParameterReader } from '../../shared/http/event';

/** A list value sends the parameter once per element. */
export type Query = Readonly<Record<string, string | readonly string[]>>;

/** Each way a client leaves `field` out: not sent, empty, only spaces, only a tab. */
export const notGiven = (field: string): [string, Query][] => [
  ['missing', {}],
  ['empty', { [field]: '' }],
  ['only spaces', { [field]: '   ' }],
  ['only a tab', { [field]: '\t' }],
];

/** A reader over these parameters. */
export const readerOf =
  (query: Query): ParameterReader =>
  (name) => {
    const value = query[name];
    if (value === undefined) return [];
    return typeof value === 'string' ? [value] : value;
  };
