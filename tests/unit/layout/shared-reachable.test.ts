/**
 * shared/ holds only code a function deploys: each of its modules is reached by the imports of
 * some handler (functions/*.ts), through functions/, middleware/ and shared/. A module that only
 * tools/ or tests import belongs in tools/ (or tests/support/).
 */
import { join } from 'node:path';
import {
  importGraph,
  modulesUnder,
  unreachedBy,
  type ImportGraph,
} from '../../support/import-graph';

const ROOT = join(import.meta.dirname, '../../..');

/** The handlers: the files directly in functions/, one per Lambda function. */
const HANDLERS = modulesUnder(ROOT, 'functions').filter(
  (file) => !file.includes('/', 'functions/'.length),
);
const SHARED = modulesUnder(ROOT, 'shared');
/** Build-time modules still in shared/, to be moved to tools/: none. */
const NOT_YET_MOVED: string[] = [];

describe('shared/', () => {
  it('finds the handlers and the shared modules it checks', () => {
    expect(HANDLERS).toContain('functions/pre-traffic.ts');
    expect(HANDLERS).toContain('functions/heartbeat.ts');
    expect(SHARED).toContain('shared/release/pre-traffic-contract.ts');
  });

  it('holds no module that no function imports (tools/ and tests are not read)', () => {
    expect(unreachedBy(importGraph(ROOT, HANDLERS), HANDLERS, SHARED)).toEqual(NOT_YET_MOVED);
  });
});

describe('unreachedBy', () => {
  const graph: ImportGraph = new Map([
    ['functions/a.ts', ['middleware/m.ts']],
    ['middleware/m.ts', ['shared/used.ts']],
    ['shared/used.ts', ['shared/deep.ts']],
    ['shared/deep.ts', []],
    // Imported by tools/ only, and by a shared module that only tools/ reaches.
    ['tools/t.ts', ['shared/tool-only.ts']],
    ['shared/tool-only.ts', ['shared/behind-tool-only.ts']],
    ['shared/behind-tool-only.ts', ['shared/used.ts']],
    ['shared/orphan.ts', []],
  ]);
  const shared = [
    'shared/used.ts',
    'shared/deep.ts',
    'shared/tool-only.ts',
    'shared/behind-tool-only.ts',
    'shared/orphan.ts',
  ];

  it('names each module the roots do not reach, however the rest import it', () => {
    expect(unreachedBy(graph, ['functions/a.ts'], shared)).toEqual([
      'shared/behind-tool-only.ts',
      'shared/orphan.ts',
      'shared/tool-only.ts',
    ]);
  });

  it('names none when every module is reached, transitively', () => {
    expect(
      unreachedBy(graph, ['functions/a.ts', 'tools/t.ts', 'shared/orphan.ts'], shared),
    ).toEqual([]);
  });
});
