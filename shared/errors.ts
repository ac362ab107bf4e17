/**
 * The one error type of the service (spec section 7) and the body it is rendered as (spec 2.6).
 * Every failure a client can see is a PortalError; anything else becomes INTERNAL_ERROR.
 */

export type ErrorCode =
  | 'OUT_OF_RANGE'
  | 'VALIDATION_ERROR'
  | 'TOKEN_INVALID'
  | 'TOKEN_EXPIRED'
  | 'FORBIDDEN'
  | 'INTERNAL_ERROR';

/** Entry codes of `errors[]`. FIELD_CANNOT_BE_EMPTY is the spec's; the rest are ours (docs/reports.md, Errors). */
export type ValidationCode =
  | 'FIELD_CANNOT_BE_EMPTY'
  | 'INVALID_DATE'
  | 'INVALID_RANGE'
  | 'FIELD_REPEATED'
  | 'FIELD_REQUIRED_WITH'
  | 'INVALID_ENCODING'
  | 'INVALID_VALUE';

export interface ValidationEntry {
  field: string;
  code: ValidationCode;
  message: string;
}

export interface ErrorBody {
  state: 'ERROR';
  code: ErrorCode;
  message: string;
  errors?: ValidationEntry[];
}

export const MESSAGES = {
  outOfRange: 'Only 31 days can be selected',
  validation: 'Error',
  headerInvalid: 'Authorization header is invalid. Did you forget to add "Bearer "?',
  tokenUnverifiable: 'The provided token cannot be verified',
  tokenExpired: 'The provided token has expired',
  forbidden: 'Forbidden',
  internal: 'Unknown error',
} as const;

/**
 * A failure the client sees, shaped as `@middy/http-error-handler` renders errors: `statusCode`,
 * `expose` (below 500 only), `headers`, and as `message` the spec 2.6 body in JSON. A 500 is
 * never exposed: the handler answers its fallback, the INTERNAL_ERROR body.
 */
export class PortalError extends Error {
  override readonly name = 'PortalError';
  readonly expose: boolean;

  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    text: string,
    readonly entries?: readonly ValidationEntry[],
    readonly headers: Readonly<Record<string, string>> = {},
    options?: ErrorOptions,
  ) {
    const body: ErrorBody = { state: 'ERROR', code, message: text };
    if (code === 'VALIDATION_ERROR') body.errors = [...(entries ?? [])];
    super(JSON.stringify(body), options);
    this.expose = statusCode < 500;
  }

  /** The body, a fresh copy each time. */
  toBody(): ErrorBody {
    return JSON.parse(this.message) as ErrorBody;
  }
}

/** RFC 6750: a 401 tells the client which scheme to use, beside the spec's body. */
const bearerChallenge = (error: string): Record<string, string> => ({
  'WWW-Authenticate': `Bearer error="${error}"`,
});

export const outOfRange = (): PortalError =>
  new PortalError(400, 'OUT_OF_RANGE', MESSAGES.outOfRange);

export const validationError = (entries: readonly ValidationEntry[]): PortalError =>
  new PortalError(400, 'VALIDATION_ERROR', MESSAGES.validation, entries);

export const cannotBeEmpty = (field: string): ValidationEntry => ({
  field,
  code: 'FIELD_CANNOT_BE_EMPTY',
  message: `${field} cannot be empty`,
});

export const headerInvalid = (): PortalError =>
  new PortalError(401, 'TOKEN_INVALID', MESSAGES.headerInvalid, undefined, {
    'WWW-Authenticate': 'Bearer',
  });

export const tokenUnverifiable = (cause?: unknown): PortalError =>
  new PortalError(
    401,
    'TOKEN_INVALID',
    MESSAGES.tokenUnverifiable,
    undefined,
    bearerChallenge('invalid_token'),
    { cause },
  );

export const tokenExpired = (cause?: unknown): PortalError =>
  new PortalError(
    401,
    'TOKEN_EXPIRED',
    MESSAGES.tokenExpired,
    undefined,
    bearerChallenge('invalid_token'),
    { cause },
  );

export const forbidden = (): PortalError => new PortalError(403, 'FORBIDDEN', MESSAGES.forbidden);

export const internalError = (cause?: unknown): PortalError =>
  new PortalError(500, 'INTERNAL_ERROR', MESSAGES.internal, undefined, {}, { cause });
