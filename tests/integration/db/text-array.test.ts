/**
 * createSql turns off postgres.js's pg_type lookup (fetch_types) and declares text[] itself:
 * lists sent as `= any(${[...]})` and text[] values read back must still reach and leave the
 * database exactly, on PGlite and on PostgreSQL.
 */
import fc from 'fast-check';
import { createSql, type Sql } from '../../../shared/db/client';

let sql: Sql;

beforeAll(() => {
  sql = createSql({
    url: process.env.DATABASE_URL ?? '',
    poolMax: 1,
    statementTimeoutMs: 5_000,
    connectTimeoutSeconds: 5,
  });
});

afterAll(async () => {
  await sql.end({ timeout: 1 });
});

/** Any text PostgreSQL can hold (no NUL), or null. */
const element = fc.option(
  fc.string({ unit: 'grapheme' }).filter((text) => !text.includes('\u0000')),
  { nil: null },
);

const TRICKY = [
  'PLACED',
  'a b',
  'say "hi"',
  'back\\slash',
  '',
  'NULL',
  null,
  '{x,y}',
  'ünï',
  ' lead',
];

describe('text[] without fetched types', () => {
  it('sends every element exactly: the server unnests what was sent, in order', async () => {
    const rows = await sql<{ value: string | null }[]>`
      select value from unnest(${TRICKY}::text[]) with ordinality as t(value, n) order by n`;

    expect(rows.map((row) => row.value)).toEqual(TRICKY);
  });

  it('reads a text[] back as the array it is', async () => {
    const [row] = await sql<{ list: unknown; empty: unknown }[]>`
      select ${TRICKY}::text[] as list, '{}'::text[] as empty`;

    expect(row).toEqual({ list: TRICKY, empty: [] });
  });

  it('matches rows with = any() of a list parameter, as the report queries do', async () => {
    const rows = await sql<{ state: string }[]>`
      select state from (values ('PLACED'), ('CANCELLED'), ('DELIVERED')) as t(state)
      where state = any(${['PLACED', 'DELIVERED']})
      order by state`;

    expect(rows.map((row) => row.state)).toEqual(['DELIVERED', 'PLACED']);
  });

  it('round-trips arbitrary lists through the server', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(element, { maxLength: 8 }), async (values) => {
        const [row] = await sql<{ list: unknown; n: number }[]>`
          select ${values}::text[] as list, cardinality(${values}::text[])::int as n`;
        expect(row).toEqual({ list: values, n: values.length });
      }),
      { numRuns: 40 },
    );
  });
});
