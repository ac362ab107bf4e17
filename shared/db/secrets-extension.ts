/**
 * Reads the database secret through the AWS Parameters and Secrets Lambda Extension: a layer
 * whose process serves GET /secretsmanager/get on localhost, authenticated by the function's own
 * session token, and calls Secrets Manager with the function role's credentials. The function
 * side is one node:http request, so no AWS SDK is loaded at a cold start (docs/database.md,
 * "The database credential").
 *
 * The extension's own cache is turned off in serverless.yml: the container keeps the credentials
 * itself, and a read after a refused login must see the rotated secret. The extension may start
 * serving a moment after the runtime starts, so a refused connection, a 5xx or its "not ready"
 * answer is retried with a short back-off until `timeoutMs` has passed. Any other answer fails at
 * once: SecretReadError with the status, never the body (which may name the secret).
 */
import { request } from 'node:http';

/** Reads the secret's current SecretString (AWSCURRENT). */
export type ReadSecret = () => Promise<string>;

/** The extension answered, but not with the secret; or did not answer in time. */
export class SecretReadError extends Error {
  override readonly name = 'SecretReadError';
  readonly code = 'ERR_DATABASE_SECRET_READ';
  constructor(
    message: string,
    /** The extension's HTTP status, when it answered. */
    readonly status?: number,
  ) {
    super(message);
  }
}

const SECRET_ARN =
  /^arn:aws(?:-cn|-us-gov)?:secretsmanager:([a-z]{2}(?:-[a-z]+)+-\d):\d{12}:secret:[A-Za-z0-9/_+=.@!-]+-[A-Za-z0-9]{6}$/;

/** The AWS region of a full Secrets Manager secret ARN, or undefined when it is not one. */
export const secretArnRegion = (arn: string): string | undefined => SECRET_ARN.exec(arn)?.[1];

export const DEFAULT_EXTENSION_PORT = 2773;

export interface SecretsExtensionOptions {
  /** The extension's port (PARAMETERS_SECRETS_EXTENSION_HTTP_PORT). */
  readonly port: number;
  /** The function's session token (AWS_SESSION_TOKEN), which the extension requires. */
  readonly sessionToken: string;
  /** How long one read may take, retries included (DB_SECRET_TIMEOUT_MS). */
  readonly timeoutMs: number;
}

interface Answer {
  readonly status: number;
  readonly body: string;
}

/**
 * One GET of the extension, bounded as a whole: a peer that accepts the connection and then says
 * nothing, or trickles its answer, is given up on after `timeoutMs` all the same.
 */
const get = (path: string, port: number, token: string, timeoutMs: number): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const call = request(
      {
        host: '127.0.0.1',
        port,
        path,
        headers: { 'X-Aws-Parameters-Secrets-Token': token },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          clearTimeout(timer);
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
        response.on('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
      },
    );
    const timer = setTimeout(() => {
      call.destroy(new SecretReadError('the secrets extension did not answer in time'));
    }, timeoutMs);
    call.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    call.end();
  });

/** A read that did not bring the secret: an answer, or no answer (a connection error). */
type Failure = { readonly answer: Answer } | { readonly error: unknown };

/** Worth asking again: the extension not listening yet, not ready yet, or failing for now. */
const isTransient = (failure: Failure): boolean =>
  'answer' in failure
    ? failure.answer.status >= 500 ||
      (failure.answer.status === 400 && /not ready/i.test(failure.answer.body))
    : ['ECONNREFUSED', 'ECONNRESET'].includes(
        String((failure.error as { code?: unknown } | null)?.code),
      );

const FIRST_BACK_OFF_MS = 10;
const MAX_BACK_OFF_MS = 200;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The SecretString of a GetSecretValue answer, or a SecretReadError. */
const secretStringOf = (body: string): string => {
  let answer: unknown;
  try {
    answer = JSON.parse(body);
  } catch {
    throw new SecretReadError('the secrets extension answered something other than JSON', 200);
  }
  const secretString =
    typeof answer === 'object' && answer !== null
      ? (answer as { SecretString?: unknown }).SecretString
      : undefined;
  if (typeof secretString !== 'string') {
    throw new SecretReadError('the secret holds no SecretString', 200);
  }
  return secretString;
};

/** A reader of one secret: each read is one GetSecretValue through the extension (no cache). */
export const secretsExtensionReader = (
  secretArn: string,
  { port, sessionToken, timeoutMs }: SecretsExtensionOptions,
): ReadSecret => {
  if (secretArnRegion(secretArn) === undefined) {
    throw new TypeError('not a full Secrets Manager secret ARN');
  }
  const path = `/secretsmanager/get?secretId=${encodeURIComponent(secretArn)}`;
  return async () => {
    const deadline = Date.now() + timeoutMs;
    for (let backOff = FIRST_BACK_OFF_MS; ; backOff = Math.min(backOff * 2, MAX_BACK_OFF_MS)) {
      const left = deadline - Date.now();
      let failure: Failure;
      try {
        const answer = await get(path, port, sessionToken, Math.max(left, 1));
        if (answer.status === 200) return secretStringOf(answer.body);
        failure = { answer };
      } catch (error) {
        failure = { error };
      }
      if (!isTransient(failure) || Date.now() + backOff >= deadline) {
        if ('error' in failure) throw failure.error;
        throw new SecretReadError('the secrets extension refused the read', failure.answer.status);
      }
      await pause(backOff);
    }
  };
};
