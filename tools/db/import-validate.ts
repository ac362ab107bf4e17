/**
 * The validation of npm run db:import's input (docs/import.md): one order or one restaurant
 * declaration per line, each checked on its own against what the database (and the
 * declarations of the same run) know, every problem reported as `line N: <field>: <message>`.
 * Pure functions: the caller reads the lines and the database.
 */
import { COUNTED_STATES, CANCELLED_STATES } from '../../shared/reports/domain';

/** Our order states (migration 001's check), counted and not counted. */
export const ORDER_STATES = [...COUNTED_STATES, ...CANCELLED_STATES] as const;
export type OrderState = (typeof ORDER_STATES)[number];

/** Longest brand order id, restaurant id, platform id, platform restaurant id (migration 003). */
export const MAX_ID_LENGTH = 100;
export const MAX_NAME_LENGTH = 200;
export const MAX_LINES = 32_767; // order_lines.line_no is a smallint
export const MAX_QUANTITY = 2_147_483_647; // order_lines.quantity is an integer
/** numeric(14, 3): at most 11 digits before the point and 3 after. */
export const MAX_INTEGER_DIGITS = 11;
export const MAX_MINOR_UNITS = 3;

const isOrderState = (value: string): value is OrderState =>
  (ORDER_STATES as readonly string[]).includes(value);

/** How the brand's states map onto ours, and where the map came from (for messages). */
export interface StateMap {
  readonly states: ReadonlyMap<string, OrderState>;
  /** The --states file, or undefined for the identity map of our five states. */
  readonly file: string | undefined;
}

export const IDENTITY_STATES: StateMap = {
  states: new Map(ORDER_STATES.map((state) => [state, state])),
  file: undefined,
};

/** The --states file's JSON: an object mapping each brand state to one of our five. */
export const parseStateMap = (
  text: string,
  file: string,
): { readonly map: StateMap } | { readonly error: string } => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `--states ${file}: not JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { error: `--states ${file}: must be a JSON object mapping brand states to ours` };
  }
  const states = new Map<string, OrderState>();
  for (const [brand, ours] of Object.entries(value)) {
    if (typeof ours !== 'string' || !isOrderState(ours)) {
      return {
        error: `--states ${file}: ${JSON.stringify(brand)} maps to ${JSON.stringify(ours)}, which is not one of ${ORDER_STATES.join(', ')}`,
      };
    }
    states.set(brand, ours);
  }
  if (states.size === 0) return { error: `--states ${file}: maps no state` };
  return { map: { states, file } };
};

/** What the database (with this run's declarations) knows of a restaurant. */
export interface KnownRestaurant {
  readonly currency: string;
  readonly minorUnits: number;
  readonly platforms: ReadonlySet<string>;
}

export interface OrderContext {
  readonly restaurants: ReadonlyMap<string, KnownRestaurant>;
  readonly states: StateMap;
}

export interface ImportLine {
  readonly dish: string;
  readonly quantity: number;
  readonly unitPrice: string;
}

/** An order as it is written: the brand's id is orders.external_id. */
export interface ImportOrder {
  readonly restaurantId: string;
  readonly platformId: string;
  readonly orderId: string;
  readonly placedAt: string;
  readonly state: OrderState;
  readonly total: string;
  readonly lines: readonly ImportLine[];
}

/** A problem with one field of a line: `field: message`. */
class Refusal extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

const refuse = (field: string, message: string): never => {
  throw new Refusal(field, message);
};

/** The most characters of a value a refusal quotes; a longer one is cut, its length named. */
export const QUOTED_CHARACTERS = 60;

/** `text` cut to an excerpt with its length when long: a refusal never repeats a whole value. */
const excerpt = (text: string): string => {
  if (text.length <= QUOTED_CHARACTERS) return text;
  // Not ending on the first half of a surrogate pair.
  const start = text.slice(0, QUOTED_CHARACTERS).replace(/[\uD800-\uDBFF]$/, '');
  return `${start}… (${String(text.length)} characters)`;
};

/** A value as a refusal names it: its JSON, cut to an excerpt when long. */
const quote = (value: unknown): string => {
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a non-finite number';
  // JSON.stringify(undefined) is undefined, whatever its declared type says.
  const json = JSON.stringify(value) as unknown;
  return excerpt(typeof json === 'string' ? json : String(value));
};

/** Parses one line of NDJSON into an object, or refuses it. */
const parseObject = (text: string): Record<string, unknown> => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Refusal('not JSON', (error as Error).message);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Refusal('not JSON', `${quote(value)} is not an object`);
  }
  return value as Record<string, unknown>;
};

/** Any character String.prototype.trim would keep (tested without copying the string). */
const NOT_BLANK = /\S/;

/** A code unit of a surrogate pair without its other half (a `\uD800` escape alone). */
const LONE_SURROGATE = /\p{Cs}/u;

const text = (value: unknown, field: string, maxLength: number): string => {
  if (value === undefined) return refuse(field, 'missing');
  if (typeof value !== 'string') return refuse(field, `${quote(value)} is not a string`);
  // What PostgreSQL's text cannot hold: refused here, never sent.
  if (value.includes('\u0000')) {
    return refuse(field, `${quote(value)} holds a NUL character (\\u0000), which text cannot hold`);
  }
  if (LONE_SURROGATE.test(value)) {
    return refuse(
      field,
      `${quote(value)} holds a lone surrogate, which is not a character of UTF-8`,
    );
  }
  if (!NOT_BLANK.test(value)) return refuse(field, 'is empty');
  if (value.length > maxLength && Array.from(value).length > maxLength) {
    return refuse(field, `is longer than ${String(maxLength)} characters`);
  }
  return value;
};

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * An amount: a decimal string with exactly the currency's minor units, not negative, within
 * numeric(14, 3).
 */
export const amount = (
  value: unknown,
  field: string,
  currency: string,
  minorUnits: number,
): string => {
  if (value === undefined) return refuse(field, 'missing');
  if (typeof value !== 'string') {
    return refuse(
      field,
      `${quote(value)} is not a decimal string (write amounts as strings, e.g. "${(0).toFixed(minorUnits)}")`,
    );
  }
  if (value.startsWith('-')) return refuse(field, `${quote(value)} is negative`);
  const match = DECIMAL.exec(value);
  if (!match) return refuse(field, `${quote(value)} is not a decimal amount`);
  const places = match[2]?.length ?? 0;
  if (places !== minorUnits) {
    return refuse(
      field,
      `${quote(value)} has ${String(places)} decimal place${places === 1 ? '' : 's'}; ${currency} amounts have ${String(minorUnits)}`,
    );
  }
  if ((match[1] ?? '').replace(/^0+(?=\d)/, '').length > MAX_INTEGER_DIGITS) {
    return refuse(
      field,
      `${quote(value)} is too large (at most ${String(MAX_INTEGER_DIGITS)} digits before the point)`,
    );
  }
  return value;
};

const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|z|[+-]\d{2}:?\d{2})?$/;

/** placedAt: ISO 8601 date and time with a mandatory offset (or Z), a real calendar instant. */
export const instant = (value: unknown, field: string): string => {
  if (value === undefined) return refuse(field, 'missing');
  if (typeof value !== 'string') return refuse(field, `${quote(value)} is not a string`);
  const match = ISO_INSTANT.exec(value);
  if (!match) {
    return refuse(
      field,
      `${quote(value)} is not an ISO 8601 date-time (2026-11-20T12:34:56+04:00)`,
    );
  }
  const [, year, month, day, hour, minute, second = '00', offset] = match;
  if (offset === undefined) return refuse(field, `${quote(value)} has no time-zone offset`);
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  const daysInMonth = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const offsetHours = /^[zZ]$/.test(offset) ? 0 : Number(offset.slice(1, 3));
  const offsetMinutes = /^[zZ]$/.test(offset) ? 0 : Number(offset.slice(-2));
  if (
    y < 1 ||
    m < 1 ||
    m > 12 ||
    d < 1 ||
    d > daysInMonth ||
    Number(hour) > 23 ||
    Number(minute) > 59 ||
    Number(second) > 59 ||
    offsetHours > 15 ||
    offsetMinutes > 59
  ) {
    return refuse(field, `${quote(value)} is not a valid date and time`);
  }
  return value;
};

const state = (value: unknown, field: string, map: StateMap): OrderState => {
  if (value === undefined) return refuse(field, 'missing');
  if (typeof value !== 'string') return refuse(field, `${quote(value)} is not a string`);
  const ours = map.states.get(value);
  if (ours !== undefined) return ours;
  return refuse(
    field,
    map.file === undefined
      ? `${quote(value)} is not one of ${ORDER_STATES.join(', ')} (map the brand's states with --states <file.json>)`
      : `${quote(value)} is not mapped by ${map.file}`,
  );
};

/**
 * Line `index` of an order. Its fields' names (`lines[0].dish`) are only built for a refusal:
 * a million orders' valid lines would otherwise build millions of strings for nothing.
 */
const orderLine = (value: unknown, index: number, restaurant: KnownRestaurant): ImportLine => {
  try {
    return checkLine(value, restaurant);
  } catch (error) {
    if (error instanceof Refusal) {
      const field = `lines[${String(index)}]${error.field === '' ? '' : `.${error.field}`}`;
      throw new Refusal(field, error.reason);
    }
    throw error;
  }
};

/** An order line's fields; a Refusal names the field within the line ('' for the line). */
const checkLine = (value: unknown, restaurant: KnownRestaurant): ImportLine => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return refuse('', `${quote(value)} is not an object`);
  }
  const line = value as Record<string, unknown>;
  const dish = text(line.dish, 'dish', MAX_NAME_LENGTH);
  const quantity = line.quantity;
  if (quantity === undefined) return refuse('quantity', 'missing');
  if (
    typeof quantity !== 'number' ||
    !Number.isInteger(quantity) ||
    quantity < 1 ||
    quantity > MAX_QUANTITY
  ) {
    return refuse('quantity', `${quote(quantity)} is not a positive integer`);
  }
  const unitPrice = amount(line.unitPrice, 'unitPrice', restaurant.currency, restaurant.minorUnits);
  return { dish, quantity, unitPrice };
};

/** A line whose bytes are not UTF-8: its text decoded with U+FFFD for the bad bytes. */
export class NotUtf8 {
  constructor(
    readonly text: string,
    /** The first bad byte: its index in `text` (a U+FFFD there) and its value. */
    readonly at: number,
    readonly byte: number,
  ) {}
}

/**
 * The field holding character `at` of a JSON text, named as refusals name fields
 * (`lines[0].dish`); undefined outside every value. Tolerant: it only scans the tokens.
 */
export const jsonFieldAt = (json: string, at: number): string | undefined => {
  type Frame = { array: true; index: number } | { array: false; key: string; value: boolean };
  const stack: Frame[] = [];
  const name = (key?: string): string | undefined => {
    let path = '';
    for (const frame of stack) {
      if (frame.array) path += `[${String(frame.index)}]`;
      else if (frame !== stack.at(-1) || frame.value) path += path ? `.${frame.key}` : frame.key;
    }
    if (key !== undefined) path += path ? `.${key}` : key;
    return path === '' ? undefined : path;
  };
  for (let i = 0; i < json.length && i <= at; i += 1) {
    const c = json[i];
    const top = stack.at(-1);
    if (c === '"') {
      const start = i;
      for (i += 1; i < json.length && json[i] !== '"'; i += 1) if (json[i] === '\\') i += 1;
      const raw = json.slice(start + 1, i);
      const isKey = top !== undefined && !top.array && !top.value;
      if (at <= i) return isKey ? name(raw) : name();
      if (isKey) top.key = raw;
    } else if (c === '{') stack.push({ array: false, key: '', value: false });
    else if (c === '[') stack.push({ array: true, index: 0 });
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ':' && top !== undefined && !top.array) top.value = true;
    else if (c === ',' && top !== undefined) {
      if (top.array) top.index += 1;
      else top.value = false;
    }
  }
  return name();
};

/** The refusal of a line that is not UTF-8, naming the field that holds its first bad byte. */
export const notUtf8 = (line: NotUtf8, lineNo: number): string => {
  const byte = `0x${line.byte.toString(16).toUpperCase().padStart(2, '0')}`;
  const at = jsonFieldAt(line.text, line.at);
  const field = at === undefined ? undefined : excerpt(at);
  return field === undefined
    ? `line ${String(lineNo)}: not UTF-8: byte ${byte}`
    : `line ${String(lineNo)}: ${field}: not UTF-8 (byte ${byte}); the file must be UTF-8`;
};

/** The outcome of one line: the value, or `line N: field: message`. */
export type Checked<T> = { readonly value: T } | { readonly error: string };

const checked = <T>(lineNo: number, check: () => T): Checked<T> => {
  try {
    return { value: check() };
  } catch (error) {
    if (error instanceof Refusal) {
      return { error: `line ${String(lineNo)}: ${error.field}: ${error.reason}` };
    }
    throw error;
  }
};

/** One order line of the brand's export (docs/import.md "Orders"). */
export const checkOrder = (
  line: string,
  lineNo: number,
  context: OrderContext,
): Checked<ImportOrder> =>
  checked(lineNo, () => {
    const order = parseObject(line);
    const restaurantId = text(order.restaurantId, 'restaurantId', MAX_ID_LENGTH);
    const restaurant = context.restaurants.get(restaurantId);
    if (restaurant === undefined) {
      return refuse('restaurantId', `${restaurantId} is not declared (see --restaurants)`);
    }
    const platformId = text(order.platformId, 'platformId', MAX_ID_LENGTH);
    if (!restaurant.platforms.has(platformId)) {
      return refuse(
        'platformId',
        `${platformId} is not declared for ${restaurantId} (see --restaurants)`,
      );
    }
    const orderId = text(order.orderId, 'orderId', MAX_ID_LENGTH);
    const placedAt = instant(order.placedAt, 'placedAt');
    const ours = state(order.state, 'state', context.states);
    const total = amount(order.total, 'total', restaurant.currency, restaurant.minorUnits);
    const lines = order.lines;
    if (lines === undefined) return refuse('lines', 'missing');
    if (!Array.isArray(lines)) return refuse('lines', `${quote(lines)} is not an array`);
    if (lines.length > MAX_LINES) {
      return refuse('lines', `has ${String(lines.length)} lines; at most ${String(MAX_LINES)}`);
    }
    return {
      restaurantId,
      platformId,
      orderId,
      placedAt,
      state: ours,
      total,
      lines: lines.map((value, i) => orderLine(value, i, restaurant)),
    };
  });

/** What the database knows before a declaration file is read. */
export interface DeclarationContext {
  /** Currency code → minor units (table currencies). */
  readonly currencies: ReadonlyMap<string, number>;
  /** Time zones PostgreSQL knows (pg_timezone_names). */
  readonly timeZones: ReadonlySet<string>;
  /** `platformId\u0000platformRestaurantId` → the restaurant holding it (restaurant_platforms). */
  readonly platformIdentities: ReadonlyMap<string, string>;
}

export interface DeclaredPlatform {
  readonly platformId: string;
  readonly platformRestaurantId: string;
}

export interface Declaration {
  readonly restaurantId: string;
  readonly name: string;
  readonly timeZone: string;
  readonly currency: string;
  readonly minorUnits: number;
  readonly platforms: readonly DeclaredPlatform[];
}

/** A time zone PostgreSQL and this runtime both know by its IANA name. */
const timeZone = (value: unknown, field: string, known: ReadonlySet<string>): string => {
  const zone = text(value, field, MAX_NAME_LENGTH);
  let intl = true;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    intl = false;
  }
  if (!intl || !known.has(zone)) {
    return refuse(field, `${quote(zone)} is not an IANA time zone (e.g. "Asia/Dubai")`);
  }
  return zone;
};

/** The currencies this runtime's ICU knows (ISO 4217, without codes that are not money). */
const ICU_CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** A currency's usual minor units, as ICU (CLDR) gives them: what the reports plugin shows. */
export const icuMinorUnits = (code: string): number =>
  new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions()
    .maximumFractionDigits ?? 2;

const currency = (
  value: unknown,
  minorUnits: unknown,
  currencies: ReadonlyMap<string, number>,
): { readonly currency: string; readonly minorUnits: number } => {
  if (value === undefined) return refuse('currency', 'missing');
  if (typeof value !== 'string' || !ICU_CURRENCIES.has(value)) {
    return refuse('currency', `${quote(value)} is not an ISO 4217 currency code (e.g. "AED")`);
  }
  const known = currencies.get(value);
  const usual = icuMinorUnits(value);
  // Undeclared: the table's, or else ICU's; either way held to what the amounts can hold.
  const units = minorUnits ?? known ?? usual;
  if (
    typeof units !== 'number' ||
    !Number.isInteger(units) ||
    units < 0 ||
    units > MAX_MINOR_UNITS
  ) {
    return refuse(
      'minorUnits',
      `${quote(units)} is not an integer from 0 to ${String(MAX_MINOR_UNITS)}`,
    );
  }
  if (known !== undefined && known !== units) {
    return refuse('minorUnits', `${value} has ${String(known)}, not ${String(units)}`);
  }
  if (known === undefined && usual !== units) {
    return refuse(
      'minorUnits',
      `${String(units)} disagrees with ISO 4217 as ICU knows it: ${value} has ${String(usual)}`,
    );
  }
  return { currency: value, minorUnits: units };
};

/** One restaurant declaration (docs/import.md "Declaring restaurants"). */
export const checkDeclaration = (
  line: string,
  lineNo: number,
  context: DeclarationContext,
): Checked<Declaration> =>
  checked(lineNo, () => {
    const declaration = parseObject(line);
    const restaurantId = text(declaration.restaurantId, 'restaurantId', MAX_ID_LENGTH);
    const name = text(declaration.name, 'name', MAX_NAME_LENGTH);
    const zone = timeZone(declaration.timeZone, 'timeZone', context.timeZones);
    const money = currency(declaration.currency, declaration.minorUnits, context.currencies);
    const platforms = declaration.platforms;
    if (platforms === undefined) return refuse('platforms', 'missing');
    if (!Array.isArray(platforms))
      return refuse('platforms', `${quote(platforms)} is not an array`);
    const seen = new Set<string>();
    const declared = platforms.map((value, i): DeclaredPlatform => {
      const field = `platforms[${String(i)}]`;
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return refuse(field, `${quote(value)} is not an object`);
      }
      const platform = value as Record<string, unknown>;
      const platformId = text(platform.platformId, `${field}.platformId`, MAX_ID_LENGTH);
      const platformRestaurantId = text(
        platform.platformRestaurantId,
        `${field}.platformRestaurantId`,
        MAX_ID_LENGTH,
      );
      if (seen.has(platformId)) {
        return refuse(`${field}.platformId`, `${platformId} is declared twice`);
      }
      seen.add(platformId);
      const holder = context.platformIdentities.get(`${platformId}\u0000${platformRestaurantId}`);
      if (holder !== undefined && holder !== restaurantId) {
        return refuse(
          `${field}.platformRestaurantId`,
          `${platformRestaurantId} on ${platformId} is already ${holder}'s`,
        );
      }
      return { platformId, platformRestaurantId };
    });
    return { restaurantId, name, timeZone: zone, ...money, platforms: declared };
  });
