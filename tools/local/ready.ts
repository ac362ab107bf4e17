/**
 * The machine-readable readiness signal of `npm start` (tools/start.ts). When the environment
 * variable PORTAL_READY_FILE names a file, `npm start` writes a JSON `ReadyDocument` there once
 * the service answers over HTTP, and removes it when it stops. The document appears whole (it is
 * written to a temporary file in the same folder, then renamed), so a reader never sees half of
 * it. tools/local/service.ts waits for it; anything else that starts `npm start` can too.
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';

export const READY_FILE_VARIABLE = 'PORTAL_READY_FILE';

export interface ReadyDocument {
  /** The shape of this document; raised on any change a reader could trip on. */
  readonly version: 1;
  /** The API, `http://localhost:PORT`. */
  readonly url: string;
  readonly port: number;
  /** The portal preview (docs/preview.md), `http://localhost:PREVIEW_PORT/`. */
  readonly previewUrl: string;
  /** The process of `npm start` (tools/start.ts). */
  readonly pid: number;
  /** A token of the sample owner from the local issuer, signed just before `readyAt`. */
  readonly token: string;
  /**
   * The token's `exp` (ISO 8601): 12 h after it was signed, or JWT_MAX_AGE seconds when that is
   * set and shorter (tools/local/token-lifetime.ts), so the functions accept it until then.
   */
  readonly tokenExpiresAt: string;
  /** The request of the printed curl: orders per day of the sample restaurant, last 7 days. */
  readonly sampleUrl: string;
  /**
   * What the readiness probe (GET `sampleUrl` with a token of the same claims as `token`) was
   * answered: 200, or 401 when JWKS_URL names a key set other than the local issuer's.
   */
  readonly probeStatus: number;
  /** `embedded` (PGlite with the sample data) or `DATABASE_URL`. */
  readonly database: 'embedded' | 'DATABASE_URL';
  /** The key set the functions verify tokens with. */
  readonly keySetUrl: string;
  /** When the probe was answered (ISO 8601). */
  readonly readyAt: string;
}

/** Writes `document` to `file` atomically (temporary file, then rename), readable by its owner only. */
export const writeReadyFile = async (file: string, document: ReadyDocument): Promise<void> => {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
};

export const removeReadyFile = (file: string): Promise<void> => rm(file, { force: true });

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The document as read, or an Error saying what is wrong with it. */
export const parseReadyDocument = (text: string): ReadyDocument | Error => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return new Error(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isRecord(value)) return new Error('not a JSON object');
  if (value.version !== 1) return new Error(`version ${JSON.stringify(value.version)}, not 1`);
  const strings = [
    'url',
    'previewUrl',
    'token',
    'tokenExpiresAt',
    'sampleUrl',
    'database',
    'keySetUrl',
    'readyAt',
  ] as const;
  const numbers = ['port', 'pid', 'probeStatus'] as const;
  const wrong = [
    ...strings.filter((name) => typeof value[name] !== 'string' || value[name] === ''),
    ...numbers.filter((name) => !Number.isInteger(value[name])),
  ];
  if (wrong.length > 0) return new Error(`missing or invalid: ${wrong.join(', ')}`);
  return value as unknown as ReadyDocument;
};

/** The document in `file`; undefined while there is none. Throws when it is no ReadyDocument. */
export const readReadyFile = async (file: string): Promise<ReadyDocument | undefined> => {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const document = parseReadyDocument(text);
  if (document instanceof Error) throw new Error(`${file}: ${document.message}`);
  return document;
};
