/**
 * A local AWS Parameters and Secrets Lambda Extension for the tests: an HTTP server on
 * 127.0.0.1 that answers GET /secretsmanager/get?secretId=<ARN> as the extension does, with the
 * GetSecretValue JSON of the secret's current version, only for a request carrying the
 * function's session token in X-Aws-Parameters-Secrets-Token (401 otherwise). The real client
 * (shared/db/secrets-extension.ts) reaches it through PARAMETERS_SECRETS_EXTENSION_HTTP_PORT and
 * AWS_SESSION_TOKEN, as on Lambda.
 *
 * Faults the tests need: a secret the role may not read (AccessDeniedException, relayed as a
 * 400 with Secrets Manager's error body), an unknown one (ResourceNotFoundException), and an
 * extension still starting (`notReadyFor(n)`: the next n reads get its 400 "not ready to serve
 * traffic, please wait").
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalSecretsExtension {
  readonly port: number;
  readonly sessionToken: string;
  /** The function environment that points the client here. */
  readonly env: Readonly<Record<string, string>>;
  /** Stores (or replaces: a rotation) the secret's SecretString. */
  put(arn: string, secretString: string): void;
  /** Answers reads of the secret with AccessDeniedException, as when the role may not read it. */
  deny(arn: string): void;
  /** The next `reads` requests get the extension's "not ready" answer. */
  notReadyFor(reads: number): void;
  /** Reads answered with the secret, per ARN. */
  reads(arn: string): number;
  /** Requests answered with anything but the secret. */
  readonly refused: number;
  close(): Promise<void>;
}

const PATH = '/secretsmanager/get';

export const startLocalSecretsExtension = async ({
  sessionToken = 'local-session-token',
  port: listenOn = 0,
}: {
  readonly sessionToken?: string;
  readonly port?: number;
} = {}): Promise<LocalSecretsExtension> => {
  const secrets = new Map<string, { value: string; version: number }>();
  const denied = new Set<string>();
  const readCounts = new Map<string, number>();
  let notReady = 0;
  let refused = 0;

  const server = createServer((request, response) => {
    const answer = (status: number, body: string, type = 'application/json'): void => {
      if (status !== 200) refused += 1;
      response.writeHead(status, { 'content-type': type });
      response.end(body);
    };
    const awsError = (type: string, message: string): void => {
      answer(400, JSON.stringify({ __type: type, message }));
    };
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET' || url.pathname !== PATH) {
      answer(404, 'not found', 'text/plain');
      return;
    }
    if (request.headers['x-aws-parameters-secrets-token'] !== sessionToken) {
      answer(401, 'Unauthorized', 'text/plain');
      return;
    }
    if (notReady > 0) {
      notReady -= 1;
      answer(400, 'not ready to serve traffic, please wait', 'text/plain');
      return;
    }
    const secretId = url.searchParams.get('secretId') ?? '';
    if (denied.has(secretId)) {
      awsError('AccessDeniedException', `not authorized to perform GetSecretValue on ${secretId}`);
      return;
    }
    const secret = secrets.get(secretId);
    if (!secret) {
      awsError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
      return;
    }
    readCounts.set(secretId, (readCounts.get(secretId) ?? 0) + 1);
    answer(
      200,
      JSON.stringify({
        ARN: secretId,
        Name: secretId.split(':secret:')[1]?.slice(0, -7) ?? secretId,
        VersionId: `00000000-0000-4000-8000-${String(secret.version).padStart(12, '0')}`,
        SecretString: secret.value,
        VersionStages: ['AWSCURRENT'],
        CreatedDate: new Date().toISOString(),
        ResultMetadata: {},
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(listenOn, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    port,
    sessionToken,
    env: {
      PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(port),
      AWS_SESSION_TOKEN: sessionToken,
    },
    put: (arn, secretString) => {
      secrets.set(arn, { value: secretString, version: (secrets.get(arn)?.version ?? 0) + 1 });
      denied.delete(arn);
    },
    deny: (arn) => {
      denied.add(arn);
    },
    notReadyFor: (reads) => {
      notReady = reads;
    },
    reads: (arn) => readCounts.get(arn) ?? 0,
    get refused() {
      return refused;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
};
