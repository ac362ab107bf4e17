/**
 * The text[] type createSql declares instead of postgres.js's pg_type lookup: the literal it
 * sends, and the parser for PostgreSQL's own output. The database's side of both is checked in
 * tests/integration/db/text-array.test.ts.
 */
import fc from 'fast-check';
import { parseTextArray, serializeTextArray } from '../../../../shared/db/types';

describe('serializeTextArray', () => {
  it('quotes every element and escapes quotes and backslashes', () => {
    expect(serializeTextArray(['PLACED', 'a b', 'say "hi"', 'back\\slash', '', 'NULL'])).toBe(
      '{"PLACED","a b","say \\"hi\\"","back\\\\slash","","NULL"}',
    );
  });

  it('writes null as a bare NULL and an empty array as {}', () => {
    expect(serializeTextArray(['a', null])).toBe('{"a",NULL}');
    expect(serializeTextArray([])).toBe('{}');
  });
});

describe('parseTextArray', () => {
  it.each([
    ['{}', []],
    ['{PLACED,ACCEPTED}', ['PLACED', 'ACCEPTED']],
    ['{NULL,"NULL"}', [null, 'NULL']],
    ['{""}', ['']],
    ['{"a b","c,d","{e}"}', ['a b', 'c,d', '{e}']],
    ['{"say \\"hi\\"","back\\\\slash"}', ['say "hi"', 'back\\slash']],
    ['{ünï,x}', ['ünï', 'x']],
  ])('reads %s as PostgreSQL writes it', (literal, values) => {
    expect(parseTextArray(literal)).toEqual(values);
  });

  it.each([
    ['not an array', 'abc'],
    ['two dimensions', '{{a,b},{c,d}}'],
    ['explicit bounds', '[0:1]={a,b}'],
    ['an unterminated quote', '{"a}'],
    ['an empty bare element', '{a,}'],
    ['text after a quoted element', '{"a"b}'],
  ])('refuses %s', (_what, literal) => {
    expect(() => parseTextArray(literal)).toThrow(TypeError);
  });

  it('reads back whatever serializeTextArray wrote', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.string({ unit: 'grapheme' }), { nil: null })), (values) => {
        expect(parseTextArray(serializeTextArray(values))).toEqual(values);
      }),
      { numRuns: 300 },
    );
  });
});
