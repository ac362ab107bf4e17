/**
 * The sample events in events/ are real API Gateway events with two kinds of placeholder, so
 * that they work on any day with a fresh local key: `${LOCAL_TOKEN}` (a token of the sample
 * owner from the local issuer), `${TODAY}` / `${TODAY-N}` (dates in the sample restaurant's
 * time zone) and `${MONTH}` / `${MONTH-N}` (the first day of this month, or of N months
 * earlier). `serverless invoke local` and the tests fill them in.
 */
import type { IsoDate } from '../../shared/dates';
import { addDays } from '../dates';

export interface PlaceholderValues {
  readonly token: string;
  readonly today: IsoDate;
}

const PATTERN = /\$\{(LOCAL_TOKEN|TODAY|MONTH)(?:-(\d{1,3}))?\}/g;

/** The first day of the month `back` months before the month of `today`. */
const monthStart = (today: IsoDate, back: number): IsoDate => {
  const [year = 0, month = 1] = today.split('-').map(Number);
  const index = year * 12 + (month - 1) - back;
  const y = Math.floor(index / 12);
  return `${String(y).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}-01` as IsoDate;
};

const fillString = (text: string, values: PlaceholderValues): string =>
  text.replace(PATTERN, (match, name: string, back?: string) => {
    const n = Number(back ?? '0');
    if (name === 'LOCAL_TOKEN') return back === undefined ? values.token : match;
    return name === 'TODAY' ? addDays(values.today, -n) : monthStart(values.today, n);
  });

export const hasPlaceholders = (value: unknown): boolean =>
  JSON.stringify(value ?? null).search(PATTERN) !== -1;

export const fillPlaceholders = <T>(value: T, values: PlaceholderValues): T =>
  JSON.parse(JSON.stringify(value), (_key, item: unknown) =>
    typeof item === 'string' ? fillString(item, values) : item,
  ) as T;
