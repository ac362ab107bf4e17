import { parsePluginParameters } from '../../../../shared/plugins/parameters';
import { readerOf } from '../../../support/parameters';
import { portalErrorOf, repeatedField, validation } from '../../../support/portal-errors';

/** The status and body of the refusal of these parameters. */
const refusal = (query: Record<string, readonly string[]>) => {
  const error = portalErrorOf(() => parsePluginParameters(readerOf(query)));
  return { status: error.statusCode, body: error.toBody() };
};

describe('parsePluginParameters: portalVersion (spec 9)', () => {
  it.each([
    ['absent', {}, 'v1'],
    ['empty', { portalVersion: [''] }, 'v1'],
    ['v1', { portalVersion: ['v1'] }, 'v1'],
    ['v2', { portalVersion: ['v2'] }, 'v2'],
  ] as const)('reads %s as %s', (_name, query, expected) => {
    // Act / Assess
    expect(parsePluginParameters(readerOf(query))).toEqual({ portalVersion: expected });
  });

  it.each(['v3', 'V2', ' v2', 'v2 ', '2', 'devnext', 'v1,v2'])(
    'refuses %p with 400 VALIDATION_ERROR / INVALID_VALUE',
    (value) => {
      // Act / Assess
      expect(refusal({ portalVersion: [value] })).toEqual({
        status: 400,
        body: validation({
          field: 'portalVersion',
          code: 'INVALID_VALUE',
          message: 'portalVersion must be v1 or v2',
        }),
      });
    },
  );

  it.each([
    ['two different values', ['v1', 'v2']],
    ['the same value twice', ['v2', 'v2']],
  ])('refuses %s with FIELD_REPEATED', (_name, values) => {
    // Act / Assess
    expect(refusal({ portalVersion: values })).toEqual({
      status: 400,
      body: validation(repeatedField('portalVersion')),
    });
  });

  it('ignores other parameters', () => {
    // Act / Assess
    expect(parsePluginParameters(readerOf({ portalversion: ['v2'], version: ['v2'] }))).toEqual({
      portalVersion: 'v1',
    });
  });
});
