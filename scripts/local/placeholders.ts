/**
 * The sample events in events/ are real API Gateway events with two kinds of placeholder, so
 * that they work on any day with a fresh local key: `${LOCAL_TOKEN}` (a token of the sample
 * owner from the local issuer) and `${TODAY}` / `${TODAY-N}` (dates in the sample
 * restaurant's time zone). `serverless invoke local` and the tests fill them in.
 */
import { addDays, type IsoDate } from '../../shared/dates';

export interface PlaceholderValues {
  readonly token: string;
  readonly today: IsoDate;
}

const PATTERN = /\$\{(LOCAL_TOKEN|TODAY(?:-(\d{1,3}))?)\}/g;

const fillString = (text: string, values: PlaceholderValues): string =>
  text.replace(PATTERN, (_match, name: string, back?: string) =>
    name === 'LOCAL_TOKEN' ? values.token : addDays(values.today, -Number(back ?? '0')),
  );

export const hasPlaceholders = (value: unknown): boolean =>
  JSON.stringify(value ?? null).search(PATTERN) !== -1;

export const fillPlaceholders = <T>(value: T, values: PlaceholderValues): T =>
  JSON.parse(JSON.stringify(value), (_key, item: unknown) =>
    typeof item === 'string' ? fillString(item, values) : item,
  ) as T;
