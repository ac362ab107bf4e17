/**
 * The environment variables a source reads, and the ones a page documents, by reading their text:
 * what tests/unit/docs/configuration.test.ts holds docs/configuration.md to.
 */

/** An environment variable's name. */
const NAME = '[A-Z][A-Z0-9_]*';
const QUOTE = `['"\`]`;
/** What holds the environment: process.env, or an `env` or `environment` passed along. */
const ENV = String.raw`(?:\bprocess\.env|\benv|\benvironment)\b`;

const READS: readonly RegExp[] = [
  // process.env.NAME, env.NAME, env?.NAME
  new RegExp(String.raw`${ENV}\??\.(${NAME})\b`, 'g'),
  // process.env['NAME'], env?.['NAME']
  new RegExp(String.raw`${ENV}(?:\?\.)?\[\s*${QUOTE}(${NAME})${QUOTE}\s*\]`, 'g'),
  // a reader given the environment and a name: integer(env, 'NAME', …)
  new RegExp(String.raw`[(,]\s*${ENV}\s*,\s*${QUOTE}(${NAME})${QUOTE}`, 'g'),
];
/** serverless.yml's ${env:NAME, default} */
const YAML_READ = new RegExp(String.raw`\$\{env:(${NAME})\b`, 'g');
/** env[NAME_VARIABLE]: a name held by a constant. */
const BY_CONSTANT = new RegExp(String.raw`${ENV}(?:\?\.)?\[\s*([A-Za-z_$][\w$]*)\s*\]`, 'g');
/** const NAME_VARIABLE = 'NAME' */
const CONSTANT = new RegExp(
  String.raw`\bconst\s+([A-Za-z_$][\w$]*)\s*=\s*${QUOTE}(${NAME})${QUOTE}`,
  'g',
);
/** const { A, B: b, ...rest } = process.env */
const DESTRUCTURED = new RegExp(String.raw`\{([^{}]*)\}\s*=\s*${ENV}(?![.?[\w])`, 'g');
const STRING = new RegExp(String.raw`${QUOTE}(${NAME})${QUOTE}`, 'g');

const isName = (text: string): boolean => new RegExp(`^${NAME}$`).test(text) && text.length > 1;

/** The constants of `sources` holding a name (`const READY_FILE_VARIABLE = 'PORTAL_READY_FILE'`). */
export const nameConstants = (sources: readonly string[]): Map<string, string> => {
  const constants = new Map<string, string>();
  for (const source of sources) {
    for (const [, constant = '', name = ''] of source.matchAll(CONSTANT))
      constants.set(constant, name);
  }
  return constants;
};

export interface Reads {
  /** The names read for certain. */
  readonly names: Set<string>;
  /** Whether it also reads names it computes (`env[name]`), which it may spell as strings. */
  readonly computed: boolean;
}

/**
 * The environment variables `source` reads (serverless.yml's `${env:…}` when `yaml`);
 * `constants` resolves env[CONSTANT].
 */
export const readsOf = (
  source: string,
  {
    constants = nameConstants([source]),
    yaml = false,
  }: {
    constants?: ReadonlyMap<string, string>;
    yaml?: boolean;
  } = {},
): Reads => {
  const names = new Set<string>();
  for (const pattern of yaml ? [YAML_READ] : READS) {
    for (const [, name = ''] of source.matchAll(pattern)) names.add(name);
  }
  let computed = false;
  for (const [, key = ''] of source.matchAll(BY_CONSTANT)) {
    const name = constants.get(key);
    if (name === undefined) computed = true;
    else names.add(name);
  }
  for (const [, fields = ''] of source.matchAll(DESTRUCTURED)) {
    for (const field of fields.split(',')) {
      const name = field.split(':')[0]?.trim() ?? '';
      if (isName(name)) names.add(name);
    }
  }
  return { names: new Set([...names].filter(isName)), computed };
};

/** The names spelled as strings in `source` ('NAME', "NAME", `NAME`). */
export const namesSpelled = (source: string): Set<string> =>
  new Set([...source.matchAll(STRING)].map(([, name = '']) => name).filter(isName));

/**
 * What a page documents: names, names shown with a value (`SEED=true`), and families (`BENCH_*`,
 * `RESERVED_CONCURRENCY_<FUNCTION>`).
 */
export interface Documented {
  readonly names: Set<string>;
  /** Shown with a value, which may be an example (`LEGACY_KEY=PLATFORM_ID`): not held to a read. */
  readonly assigned: Set<string>;
  /** The prefixes of the families: `BENCH_`, `RESERVED_CONCURRENCY_`. */
  readonly prefixes: Set<string>;
}

/** The backticked names and families of a Markdown page. */
export const documentedIn = (markdown: string): Documented => {
  const names = new Set<string>();
  const assigned = new Set<string>();
  const prefixes = new Set<string>();
  for (const [, code = ''] of markdown.matchAll(/`([^`\n]+)`/g)) {
    const family = /^([A-Z][A-Z0-9_]*_)(?:\*|<[^>]+>.*)$/.exec(code);
    const assignment = /^([A-Z][A-Z0-9_]*)=/.exec(code);
    if (family) prefixes.add(family[1] ?? '');
    else if (assignment) assigned.add(assignment[1] ?? '');
    else if (isName(code)) names.add(code);
  }
  return { names, assigned, prefixes };
};

/** Whether `name` is documented: by its name, or as one of a family. */
export const isDocumented = (name: string, documented: Documented): boolean =>
  documented.names.has(name) ||
  documented.assigned.has(name) ||
  [...documented.prefixes].some((prefix) => name.startsWith(prefix) && name !== prefix);
