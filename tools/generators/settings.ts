/**
 * How the operations settings are read (tools/generators/operations.ts and its modules): each is a value
 * as packaging read it, with the variable it came from, and a bad one throws a TypeError
 * naming that variable.
 */

/** A value as packaging read it, with the variable it came from (a regional form, say). */
export interface RawSetting {
  readonly variable: string;
  readonly value: string;
}

export const fail = (variable: string, message: string): never => {
  throw new TypeError(`${variable} ${message}`);
};

export const booleanSetting = ({ variable, value }: RawSetting, fallback: boolean): boolean => {
  if (value === '') return fallback;
  if (value === 'true' || value === 'false') return value === 'true';
  return fail(variable, `is "${value}": expected true or false`);
};

export const numberSetting = (
  { variable, value }: RawSetting,
  fallback: number,
  { min, max, whole }: { min: number; max: number; whole: boolean },
): number => {
  if (value === '') return fallback;
  const pattern = whole ? /^\d+$/ : /^\d+(\.\d+)?$/;
  const n = Number(value);
  if (!pattern.test(value) || n < min || n > max) {
    return fail(
      variable,
      `is "${value}": expected ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}`,
    );
  }
  return n;
};

/** One of `choices`, or `fallback` when unset. */
export const choiceSetting = <T extends string>(
  { variable, value }: RawSetting,
  choices: readonly T[],
  fallback: T,
): T => {
  if (value === '') return fallback;
  const choice = choices.find((c) => c === value);
  return choice ?? fail(variable, `is "${value}": expected ${choices.join(', ')}`);
};
