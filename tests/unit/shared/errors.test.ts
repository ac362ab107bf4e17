import {
  cannotBeEmpty,
  forbidden,
  headerInvalid,
  internalError,
  MESSAGES,
  outOfRange,
  PortalError,
  tokenExpired,
  tokenUnverifiable,
  validationError,
  type ErrorBody,
} from '../../../shared/errors';
import { BODIES, emptyField, validation } from '../../support/portal-errors';

interface FactoryCase {
  readonly name: string;
  readonly make: () => PortalError;
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: ErrorBody;
}

const BEARER = { 'WWW-Authenticate': 'Bearer error="invalid_token"' };
const FACTORIES: readonly FactoryCase[] = [
  {
    name: 'outOfRange',
    make: outOfRange,
    statusCode: 400,
    headers: {},
    body: BODIES.daysOutOfRange,
  },
  {
    name: 'validationError',
    make: () => validationError([cannotBeEmpty('from'), cannotBeEmpty('to')]),
    statusCode: 400,
    headers: {},
    body: validation(emptyField('from'), emptyField('to')),
  },
  {
    name: 'headerInvalid',
    make: headerInvalid,
    statusCode: 401,
    headers: { 'WWW-Authenticate': 'Bearer' },
    body: BODIES.bearerMissing,
  },
  {
    name: 'tokenUnverifiable',
    make: () => tokenUnverifiable(),
    statusCode: 401,
    headers: BEARER,
    body: BODIES.unverifiable,
  },
  {
    name: 'tokenExpired',
    make: () => tokenExpired(),
    statusCode: 401,
    headers: BEARER,
    body: BODIES.expired,
  },
  { name: 'forbidden', make: forbidden, statusCode: 403, headers: {}, body: BODIES.forbidden },
  {
    name: 'internalError',
    make: () => internalError(),
    statusCode: 500,
    headers: {},
    body: BODIES.internal,
  },
];

describe('error factories (spec section 7)', () => {
  it.each(FACTORIES)(
    '$name answers $statusCode with the whole error body of spec 2.6',
    ({ make, statusCode, headers, body }) => {
      // Act / Assess
      const error = make();
      expect(error).toBeInstanceOf(PortalError);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe('PortalError');
      expect(error.statusCode).toBe(statusCode);
      expect(error.headers).toEqual(headers);
      expect(error.toBody()).toEqual(body);
    },
  );

  it('carries WWW-Authenticate on every 401 and on no other status', () => {
    // Act / Assess
    const errors = FACTORIES.map(({ make }) => make());
    for (const error of errors) {
      expect(Object.keys(error.headers).includes('WWW-Authenticate')).toBe(
        error.statusCode === 401,
      );
    }
  });

  it('puts errors[] in the body of VALIDATION_ERROR only', () => {
    // Act / Assess
    const bodies = FACTORIES.map(({ make }) => make().toBody());
    for (const body of bodies) {
      expect('errors' in body).toBe(body.code === 'VALIDATION_ERROR');
    }
  });

  it.each([
    [
      'gives a VALIDATION_ERROR without entries an empty errors[]',
      () => validationError([]),
      validation(),
    ],
    [
      'gives a VALIDATION_ERROR built without entries an empty errors[]',
      () => new PortalError(400, 'VALIDATION_ERROR', MESSAGES.validation),
      validation(),
    ],
    [
      'leaves out errors[] for a non-validation code even when entries were passed',
      () => new PortalError(400, 'OUT_OF_RANGE', MESSAGES.outOfRange, [cannotBeEmpty('id')]),
      BODIES.daysOutOfRange,
    ],
  ])('%s', (_behaviour, make, body) => {
    // Act / Assess
    expect(make().toBody()).toEqual(body);
  });

  it('renders a fresh errors[] so changing one body cannot change the error', () => {
    // Prepare
    const error = validationError([cannotBeEmpty('from')]);
    error.toBody().errors?.push(cannotBeEmpty('to'));

    // Act / Assess
    const body = error.toBody();
    expect(body.errors).toEqual([emptyField('from')]);
  });

  it('keeps the original failure as cause without showing it in the body', () => {
    // Prepare
    const original = new Error('jose: signature verification failed');

    // Act / Assess
    const errors = [tokenUnverifiable(original), tokenExpired(original), internalError(original)];
    for (const error of errors) {
      expect(error.cause).toBe(original);
      expect(JSON.stringify(error.toBody())).not.toContain('jose');
    }
  });
});

describe('cannotBeEmpty', () => {
  it.each(['id', 'from', 'to'])(
    'names the empty field %s as "<field> cannot be empty"',
    (field) => {
      // Act / Assess
      expect(cannotBeEmpty(field)).toEqual({
        field,
        code: 'FIELD_CANNOT_BE_EMPTY',
        message: `${field} cannot be empty`,
      });
    },
  );
});
