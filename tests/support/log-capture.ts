/**
 * Captures everything the service logs (its logger writes JSON lines to stdout) while a suite
 * runs, so the suite can assert that no token, no claim value (email, name, user id) and no
 * SQL reached a log line. Suites that want debug-level lines set LOG_LEVEL before importing
 * the handler modules (dynamic import in beforeAll), because handlers read it when loaded.
 */
import { jest } from '@jest/globals';

export interface LogCapture {
  readonly lines: () => string[];
  /** Every captured line is JSON, and none contains any of `secrets`. */
  readonly expectClean: (secrets: Iterable<string>) => void;
  readonly stop: () => void;
}

export const captureLogs = (): LogCapture => {
  const chunks: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    }),
  );
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter((line) => line.trim() !== '');
  return {
    lines,
    expectClean: (secrets) => {
      const all = lines();
      for (const line of all) expect(() => JSON.parse(line) as unknown).not.toThrow();
      const text = all.join('\n');
      for (const secret of secrets) {
        if (secret.length >= 6) expect(text.includes(secret) ? secret : '').toBe('');
      }
      expect(text).not.toMatch(/\bselect\b.*\bfrom\b|\s+at\s+\S+\s+\(.*:\d+:\d+\)/i);
    },
    stop: () => {
      for (const spy of spies) spy.mockRestore();
    },
  };
};

/** The values of a sample owner's claims that must never be logged. */
export const claimSecrets = (owner: { email: string; name: string; sub: string }): string[] => [
  owner.email,
  owner.name,
];
