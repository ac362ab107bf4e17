import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  parseReadyDocument,
  readReadyFile,
  removeReadyFile,
  writeReadyFile,
  type ReadyDocument,
} from '../../../tools/local/ready';

const DOCUMENT: ReadyDocument = {
  version: 1,
  url: 'http://localhost:3000',
  port: 3000,
  previewUrl: 'http://localhost:3001/',
  pid: 4242,
  token: 'header.payload.signature',
  tokenExpiresAt: '2026-03-15T22:00:00.000Z',
  sampleUrl: 'http://localhost:3000/v1/restaurants/R-1001/reports/orders/day?from=a&to=b',
  probeStatus: 200,
  database: 'embedded',
  keySetUrl: 'http://127.0.0.1:40000/v2/jwks.json',
  readyAt: '2026-03-15T10:00:00.000Z',
};

let folder = '';
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'portal-ready-test-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("npm start's readiness document (PORTAL_READY_FILE)", () => {
  it('reads nothing while there is no file, then what was written, then nothing once removed', async () => {
    // Prepare
    const file = join(folder, 'ready.json');

    // Act
    const before = await readReadyFile(file);
    await writeReadyFile(file, DOCUMENT);
    const written = await readReadyFile(file);
    await removeReadyFile(file);
    const after = await readReadyFile(file);

    // Assess
    expect({ before, written, after }).toEqual({
      before: undefined,
      written: DOCUMENT,
      after: undefined,
    });
  });

  it('leaves only the document in the folder, readable by its owner only (it holds a token)', async () => {
    // Prepare
    const file = join(folder, 'ready.json');

    // Act
    await writeReadyFile(file, DOCUMENT);

    // Assess
    expect(await readdir(folder)).toEqual(['ready.json']);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('replaces a document already there whole', async () => {
    // Prepare
    const file = join(folder, 'ready.json');
    await writeFile(file, 'stale');

    // Act
    await writeReadyFile(file, { ...DOCUMENT, port: 3001 });

    // Assess
    expect((await readReadyFile(file))?.port).toBe(3001);
  });

  it('leaves no temporary file behind when it cannot write', async () => {
    // Prepare
    const file = join(folder, 'missing-folder', 'ready.json');

    // Act
    const written = writeReadyFile(file, DOCUMENT);

    // Assess
    await expect(written).rejects.toThrow(/ENOENT/);
    expect(await readdir(folder)).toEqual([]);
  });

  it.each([
    ['not JSON', '{"version":1,', /not JSON/],
    ['not an object', '[1]', /not a JSON object/],
    ['another version', JSON.stringify({ ...DOCUMENT, version: 2 }), /version 2, not 1/],
    [
      'fields missing or of the wrong type',
      JSON.stringify({ ...DOCUMENT, token: '', tokenExpiresAt: 7, port: '3000', pid: undefined }),
      /missing or invalid: token, tokenExpiresAt, port, pid/,
    ],
  ])('refuses a document that is %s', async (_name, text, message) => {
    // Prepare
    const file = join(folder, 'ready.json');
    await writeFile(file, text);

    // Act
    const read = readReadyFile(file);

    // Assess
    await expect(read).rejects.toThrow(message);
    expect(parseReadyDocument(text)).toBeInstanceOf(Error);
  });
});
