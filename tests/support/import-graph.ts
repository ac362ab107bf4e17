/**
 * The relative imports between the project's TypeScript modules, as a graph of repository paths
 * (static `import`/`export … from`, `import type`, and `import()`), and what a set of roots
 * reaches through it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';

/** Each module (a repository path) and the modules it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** The `.ts` files under `folder` of `root`, as repository paths, sorted. */
export const modulesUnder = (root: string, folder: string): string[] =>
  readdirSync(join(root, folder), {
    recursive: true,
    withFileTypes: true,
  })
    .filter(
      (entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'),
    )
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();

/** The module a relative specifier names from `from`: `<path>.ts`, `<path>/index.ts` or itself. */
const resolve = (root: string, from: string, specifier: string): string | undefined => {
  const base = normalize(join(dirname(from), specifier));
  const candidates = [`${base}.ts`, join(base, 'index.ts'), base.replace(/\.js$/, '.ts'), base];
  return candidates.find(
    (candidate) => existsSync(join(root, candidate)) && candidate.endsWith('.ts'),
  );
};

/** The modules `file` (a repository path) imports by a relative specifier. */
export const importsOf = (root: string, file: string): string[] => {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .flatMap((specifier) => resolve(root, file, specifier) ?? []);
};

/** The graph of `files` and every module they import, transitively. */
export const importGraph = (root: string, files: readonly string[]): ImportGraph => {
  const graph = new Map<string, readonly string[]>();
  const pending = [...files];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (graph.has(file)) continue;
    const imports = importsOf(root, file);
    graph.set(file, imports);
    pending.push(...imports);
  }
  return graph;
};

/** Every module `roots` reach in `graph`, the roots included. */
export const reachable = (graph: ImportGraph, roots: readonly string[]): Set<string> => {
  const seen = new Set<string>();
  const pending = [...roots];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...(graph.get(file) ?? []));
  }
  return seen;
};

/** The `modules` that none of `roots` reaches in `graph`, sorted. */
export const unreachedBy = (
  graph: ImportGraph,
  roots: readonly string[],
  modules: readonly string[],
): string[] => {
  const seen = reachable(graph, roots);
  return modules.filter((module) => !seen.has(module)).sort();
};
