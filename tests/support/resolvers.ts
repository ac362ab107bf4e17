/**
 * The serverless variable resolvers (tools/serverless/*.cjs) called directly, as osls calls
 * them: the environment variables they read set for one call, and the addresses they resolve
 * answered from a map.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT } from './processes';

/** A resolver's argument: what osls hands it. */
interface ResolverContext {
  resolveVariable(address: string): Promise<unknown>;
}

/**
 * Sets exactly these environment variables for a call (the others of `names` removed); the
 * describe block that calls it gets them back as they were after each test.
 */
const environmentOf = (names: readonly string[]) => {
  const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) Reflect.deleteProperty(process.env, name);
      else process.env[name] = value;
    }
  });
  return (env: Readonly<Record<string, string>>): void => {
    for (const name of names) Reflect.deleteProperty(process.env, name);
    Object.assign(process.env, env);
  };
};

/**
 * Answers each address in `values` with its value and `param:NAME, null` from `params` (null
 * when not given); refuses any other address.
 */
const resolverContext = (
  values: Readonly<Record<string, unknown>>,
  params: Readonly<Record<string, string>> = {},
): ResolverContext => ({
  resolveVariable: (address) => {
    if (address in values) return Promise.resolve(values[address]);
    const param = /^param:(\w+), null$/.exec(address)?.[1];
    if (param) return Promise.resolve(params[param] ?? null);
    return Promise.reject(new Error(`unexpected address ${address}`));
  },
});

/**
 * The resolver `script` exports (a path from the project's root), called with exactly `env` of
 * the variables `names`, `values` for the addresses it resolves and `params`; for a describe
 * block, whose tests get `names` back as they were.
 */
export const resolverOf = <T>(script: string, names: readonly string[]) => {
  const resolver = createRequire(import.meta.url)(join(ROOT, script)) as (
    context: ResolverContext,
  ) => Promise<T>;
  const setEnvironment = environmentOf(names);
  return (
    values: Readonly<Record<string, unknown>>,
    env: Readonly<Record<string, string>>,
    params: Readonly<Record<string, string>> = {},
  ): Promise<T> => {
    setEnvironment(env);
    return resolver(resolverContext(values, params));
  };
};
