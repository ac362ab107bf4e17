/**
 * The PostgreSQL types the pools declare themselves (postgres.js's `types` option): DATE kept as
 * text, and text[], the one array type the queries send. postgres.js's lookup of array types is
 * off (`fetch_types`), so any other array type fails loudly until declared here.
 */

const DATE_OID = 1082;

/** DATE values as their YYYY-MM-DD text, never shifted through a JavaScript Date. */
export const keepText = {
  to: DATE_OID,
  from: [DATE_OID],
  serialize: (value: string) => value,
  parse: (value: string) => value,
};

/**
 * text[] (the same OID in every PostgreSQL), for the `= any(${[...]})` lists of states and
 * platform ids. Declared here because postgres.js learns array types from a catalog query on
 * every new connection, which a cold start or a reconnect would wait for; any other array
 * type fails loudly (a TypeError here, or the server's "malformed array literal") until declared.
 */
const TEXT_ARRAY_OID = 1009;

/** A text[] value as a PostgreSQL array literal; every element quoted, so any text is safe. */
export const serializeTextArray = (values: readonly (string | null)[]): string =>
  `{${values
    .map((value) => (value === null ? 'NULL' : `"${value.replace(/["\\]/g, '\\$&')}"`))
    .join(',')}}`;

/**
 * A one-dimensional text[] as PostgreSQL writes it: `{}`, bare elements, `NULL`, and quoted
 * elements with backslash escapes. Anything else (several dimensions, explicit bounds) is a
 * TypeError rather than a guess.
 */
export const parseTextArray = (literal: string): (string | null)[] => {
  const malformed = (): TypeError => new TypeError('not a one-dimensional text[] literal');
  if (!literal.startsWith('{') || !literal.endsWith('}')) throw malformed();
  const values: (string | null)[] = [];
  const end = literal.length - 1;
  if (end === 1) return values;
  let i = 1;
  for (;;) {
    if (literal[i] === '"') {
      let value = '';
      i += 1;
      while (i < end && literal[i] !== '"') {
        if (literal[i] === '\\') i += 1;
        value += literal[i] ?? '';
        i += 1;
      }
      if (i >= end) throw malformed();
      i += 1;
      values.push(value);
    } else {
      let next = i;
      while (next < end && literal[next] !== ',') next += 1;
      const bare = literal.slice(i, next);
      if (bare === '' || /["{}\\]/.test(bare)) throw malformed();
      values.push(bare === 'NULL' ? null : bare);
      i = next;
    }
    if (i === end) return values;
    if (literal[i] !== ',') throw malformed();
    i += 1;
  }
};

/** text[] both ways, as postgres.js's `types` option takes it. */
export const textArray = {
  to: TEXT_ARRAY_OID,
  from: [TEXT_ARRAY_OID],
  serialize: serializeTextArray,
  parse: parseTextArray,
};
