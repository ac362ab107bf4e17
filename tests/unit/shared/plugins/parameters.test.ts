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
    // Act
    const parsed = parsePluginParameters(readerOf(query));

    // Assess
    expect(parsed).toEqual({ portalVersion: expected });
  });

  it.each(['v3', 'V2', ' v2', 'v2 ', '2', 'devnext', 'v1,v2'])(
    'refuses %p with 400 VALIDATION_ERROR / INVALID_VALUE',
    (value) => {
      // Act
      const refused = refusal({ portalVersion: [value] });

      // Assess
      expect(refused).toEqual({
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
    // Act
    const refused = refusal({ portalVersion: values });

    // Assess
    expect(refused).toEqual({ status: 400, body: validation(repeatedField('portalVersion')) });
  });

  it('ignores other parameters', () => {
    // Act
    const parsed = parsePluginParameters(readerOf({ portalversion: ['v2'], version: ['v2'] }));

    // Assess
    expect(parsed).toEqual({ portalVersion: 'v1' });
  });
});
