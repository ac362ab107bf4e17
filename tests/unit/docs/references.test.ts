/**
 * Every reference resolves: each relative Markdown link of the project's documents names a file
 * that exists, and its `#anchor` a heading of that file (GitHub's slugs, github-slugger); each
 * pointer, in a code comment or a document, to a document's section (`BENCHMARKS.md, "Current
 * figures"`, `docs/database.md "TLS to the database"`) names a document and a heading that
 * exist, and each document named in code exists.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import GithubSlugger from 'github-slugger';

const ROOT = join(import.meta.dirname, '../../..');

/** The tracked files (git ls-files) matching `patterns`: what a clone of the project holds. */
const tracked = (...patterns: string[]): string[] =>
  execFileSync('git', ['ls-files', '--', ...patterns], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((file) => file !== '' && existsSync(join(ROOT, file)));

const DOCUMENTS = tracked('*.md');
const SOURCES = tracked('*.ts', '*.tsx', '*.cjs', '*.js', '*.mjs', '*.yml', '*.sh').filter(
  (file) => !file.startsWith('tests/unit/docs/'),
);

/** The text of a Markdown file with its fenced code blocks blanked (links there are examples). */
const prose = (file: string): string =>
  readFileSync(join(ROOT, file), 'utf8').replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');

const anchorsCache = new Map<string, Set<string>>();
/** The anchors GitHub gives the headings of a Markdown file. */
const anchorsOf = (file: string): Set<string> => {
  let anchors = anchorsCache.get(file);
  if (anchors === undefined) {
    const slugger = new GithubSlugger();
    anchors = new Set(
      [...prose(file).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)].map((match) =>
        slugger.slug((match[1] ?? '').replace(/[`*_]/g, '')),
      ),
    );
    anchorsCache.set(file, anchors);
  }
  return anchors;
};

/** The headings of a Markdown file, as written (without emphasis). */
const headingsOf = (file: string): string[] =>
  [...prose(file).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)].map((match) =>
    (match[1] ?? '').replace(/[`*_]/g, ''),
  );

interface Problem {
  readonly in: string;
  readonly reference: string;
  readonly problem: string;
}

/** The problem with a link from `from` to `target` (path and optional #anchor), if any. */
const linkProblem = (from: string, target: string): string | undefined => {
  const [path = '', anchor] = target.split('#');
  const file = path === '' ? from : normalize(join(dirname(from), decodeURIComponent(path)));
  if (relative(ROOT, join(ROOT, file)).startsWith('..')) return 'outside the project';
  if (!existsSync(join(ROOT, file))) return 'no such file';
  if (anchor === undefined || anchor === '') return undefined;
  if (!file.endsWith('.md') || statSync(join(ROOT, file)).isDirectory()) return undefined;
  return anchorsOf(file).has(anchor) ? undefined : `no heading with the anchor #${anchor}`;
};

/** Relative Markdown links, inline (`[text](target)`) and reference-style (`[id]: target`). */
const linksOf = (file: string): string[] => {
  const text = prose(file).replace(/`[^`\n]*`/g, '');
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)];
  const defined = [...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)];
  return [...inline, ...defined]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
};

/**
 * Pointers in code to a section of a document: a project Markdown file named with a path (or
 * BENCHMARKS.md, README.md, SECURITY.md alone) followed by a quoted heading.
 */
const POINTER =
  /((?:docs\/[\w.-]+|BENCHMARKS|README|SECURITY)(?:\.md))(?:,|:)?\s*(?:section\s+)?"([^"\n]+)"/g;

/** Document names in code (`docs/x.md`, `BENCHMARKS.md`): the file must exist. */
const DOCUMENT = /\b((?:docs\/[\w.-]+\.md)|BENCHMARKS\.md|SECURITY\.md)\b/g;

describe('references', () => {
  it('finds the documents and sources it checks', () => {
    expect(DOCUMENTS).toEqual(expect.arrayContaining(['README.md', 'docs/database.md']));
    expect(SOURCES.length).toBeGreaterThan(100);
  });

  it('resolves every relative Markdown link and anchor', () => {
    const problems: Problem[] = DOCUMENTS.flatMap((file) =>
      linksOf(file).flatMap((target) => {
        const problem = linkProblem(file, target);
        return problem === undefined ? [] : [{ in: file, reference: target, problem }];
      }),
    );

    expect(problems).toEqual([]);
  });

  it('resolves every pointer to a document and its section, in code comments and documents', () => {
    const problems: Problem[] = [...SOURCES, ...DOCUMENTS].flatMap((file) => {
      const source = file.endsWith('.md') ? prose(file) : readFileSync(join(ROOT, file), 'utf8');
      const text = source.replace(/\s*\n\s*(\*|\/\/|#)?\s*/g, ' ');
      const named = [...text.matchAll(DOCUMENT)].flatMap((match) => {
        const document = match[1] ?? '';
        return existsSync(join(ROOT, document))
          ? []
          : [{ in: file, reference: document, problem: 'no such document' }];
      });
      const sections = [...text.matchAll(POINTER)].flatMap((match) => {
        const [document = '', heading = ''] = [match[1], match[2]];
        if (!existsSync(join(ROOT, document))) return [];
        const headings = headingsOf(document);
        return headings.some(
          (candidate) => candidate === heading || candidate.startsWith(`${heading} (`),
        )
          ? []
          : [{ in: file, reference: `${document} "${heading}"`, problem: 'no such heading' }];
      });
      return [...named, ...sections];
    });

    expect(problems).toEqual([]);
  });

  it('catches what it is for: a missing file, a missing anchor, a missing section', () => {
    expect(linkProblem('docs/database.md', 'nowhere.md')).toBe('no such file');
    expect(linkProblem('docs/database.md', 'deployment.md#no-such-heading')).toBe(
      'no heading with the anchor #no-such-heading',
    );
    expect(linkProblem('docs/database.md', 'deployment.md#per-stage-settings')).toBeUndefined();
    expect(linkProblem('README.md', '#two-commands')).toBeUndefined();
    expect([...'see BENCHMARKS.md, "Levers measured"'.matchAll(POINTER)].map((m) => m[2])).toEqual([
      'Levers measured',
    ]);
    expect(headingsOf('BENCHMARKS.md')).not.toContain('Levers measured');
  });
});
