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

interface FactoryCase {
  readonly name: string;
  readonly make: () => PortalError;
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: ErrorBody;
}

const FACTORIES: readonly FactoryCase[] = [
  {
    name: 'outOfRange',
    make: outOfRange,
    statusCode: 400,
    headers: {},
    body: { state: 'ERROR', code: 'OUT_OF_RANGE', message: 'Only 31 days can be selected' },
  },
  {
    name: 'validationError',
    make: () => validationError([cannotBeEmpty('from'), cannotBeEmpty('to')]),
    statusCode: 400,
    headers: {},
    body: {
      state: 'ERROR',
      code: 'VALIDATION_ERROR',
      message: 'Error',
      errors: [
        { field: 'from', code: 'FIELD_CANNOT_BE_EMPTY', message: 'from cannot be empty' },
        { field: 'to', code: 'FIELD_CANNOT_BE_EMPTY', message: 'to cannot be empty' },
      ],
    },
  },
  {
    name: 'headerInvalid',
    make: headerInvalid,
    statusCode: 401,
    headers: { 'WWW-Authenticate': 'Bearer' },
    body: {
      state: 'ERROR',
      code: 'TOKEN_INVALID',
      message: 'Authorization header is invalid. Did you forget to add "Bearer "?',
    },
  },
  {
    name: 'tokenUnverifiable',
    make: () => tokenUnverifiable(),
    statusCode: 401,
    headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
    body: {
      state: 'ERROR',
      code: 'TOKEN_INVALID',
      message: 'The provided token cannot be verified',
    },
  },
  {
    name: 'tokenExpired',
    make: () => tokenExpired(),
    statusCode: 401,
    headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
    body: { state: 'ERROR', code: 'TOKEN_EXPIRED', message: 'The provided token has expired' },
  },
  {
    name: 'forbidden',
    make: forbidden,
    statusCode: 403,
    headers: {},
    body: { state: 'ERROR', code: 'FORBIDDEN', message: 'Forbidden' },
  },
  {
    name: 'internalError',
    make: () => internalError(),
    statusCode: 500,
    headers: {},
    body: { state: 'ERROR', code: 'INTERNAL_ERROR', message: 'Unknown error' },
  },
];

describe('error factories (spec section 7)', () => {
  it.each(FACTORIES)(
    '$name answers $statusCode with the whole error body of spec 2.6',
    ({ make, statusCode, headers, body }) => {
      // Act
      const error = make();

      // Assess
      expect(error).toBeInstanceOf(PortalError);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe('PortalError');
      expect(error.statusCode).toBe(statusCode);
      expect(error.headers).toEqual(headers);
      expect(error.toBody()).toEqual(body);
    },
  );

  it('carries WWW-Authenticate on every 401 and on no other status', () => {
    // Act
    const errors = FACTORIES.map(({ make }) => make());

    // Assess
    for (const error of errors) {
      expect(Object.keys(error.headers).includes('WWW-Authenticate')).toBe(
        error.statusCode === 401,
      );
    }
  });

  it('puts errors[] in the body of VALIDATION_ERROR only', () => {
    // Act
    const bodies = FACTORIES.map(({ make }) => make().toBody());

    // Assess
    for (const body of bodies) {
      expect('errors' in body).toBe(body.code === 'VALIDATION_ERROR');
    }
  });

  it('gives a VALIDATION_ERROR without entries an empty errors[]', () => {
    // Act / Assess
    expect(validationError([]).toBody()).toEqual({
      state: 'ERROR',
      code: 'VALIDATION_ERROR',
      message: 'Error',
      errors: [],
    });
  });

  it('gives a VALIDATION_ERROR built without entries an empty errors[]', () => {
    // Prepare
    const error = new PortalError(400, 'VALIDATION_ERROR', MESSAGES.validation);

    // Act / Assess
    expect(error.toBody()).toEqual({
      state: 'ERROR',
      code: 'VALIDATION_ERROR',
      message: 'Error',
      errors: [],
    });
  });

  it('leaves out errors[] for a non-validation code even when entries were passed', () => {
    // Prepare
    const error = new PortalError(400, 'OUT_OF_RANGE', MESSAGES.outOfRange, [cannotBeEmpty('id')]);

    // Act / Assess
    expect(error.toBody()).toEqual({
      state: 'ERROR',
      code: 'OUT_OF_RANGE',
      message: 'Only 31 days can be selected',
    });
  });

  it('renders a fresh errors[] so changing one body cannot change the error', () => {
    // Prepare
    const error = validationError([cannotBeEmpty('from')]);
    error.toBody().errors?.push(cannotBeEmpty('to'));

    // Act
    const body = error.toBody();

    // Assess
    expect(body.errors).toEqual([
      { field: 'from', code: 'FIELD_CANNOT_BE_EMPTY', message: 'from cannot be empty' },
    ]);
  });

  it('keeps the original failure as cause without showing it in the body', () => {
    // Prepare
    const original = new Error('jose: signature verification failed');

    // Act
    const errors = [tokenUnverifiable(original), tokenExpired(original), internalError(original)];

    // Assess
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
