/**
 * The serverless variable resolvers (tools/serverless/*.cjs) called directly, as osls calls
 * them: each call in a Node process of its own (they load the TypeScript rules of
 * tools/generators/ through tsx, whose loader hooks Jest does not allow), with the environment
 * variables they read set for that call only, and the addresses they resolve answered from a map
 * over serverless.yml's own custom maps.
 */
import { join } from 'node:path';
import { readReleaseConfig } from '../../tools/release/regions';
import { ROOT, run } from './processes';

/** serverless.yml's own maps, which every resolver reads through tools/serverless/settings.cjs. */
const config = readReleaseConfig();
const SERVERLESS_YML: Readonly<Record<string, unknown>> = {
  'self:custom.stages, null': config.stages,
  'self:custom.portalRegions': config.portalRegions,
  'self:custom.keySetVariables': config.keySetVariables,
  'self:custom.issuerVariables': config.issuerVariables,
};

/**
 * Runs in the child: calls the resolver with a resolveVariable answering each address of
 * `values`, and `param:NAME, null` from `params` (null when not given), refusing any other
 * address; writes what it resolved to, or the message it failed with, as JSON.
 */
const CHILD = `
const [script, call] = process.argv.slice(1);
const { values, params } = JSON.parse(call);
const resolveVariable = (address) => {
  if (Object.hasOwn(values, address)) return Promise.resolve(values[address]);
  const param = /^param:(\\w+), null$/.exec(address)?.[1];
  if (param) return Promise.resolve(params[param] ?? null);
  return Promise.reject(new Error('unexpected address ' + address));
};
require(script)({ resolveVariable }).then(
  (value) => process.stdout.write(JSON.stringify({ value })),
  (error) => process.stdout.write(JSON.stringify({ error: error.message })),
);
`;

/**
 * The resolver `script` exports (a path from the project's root), called with exactly `env` of
 * the variables `names` (the others of them unset), `values` for the addresses it resolves and
 * `params`. Resolves to what it resolved to; rejects with an Error of its message when it fails.
 */
export const resolverOf =
  <T>(script: string, names: readonly string[]) =>
  async (
    values: Readonly<Record<string, unknown>>,
    env: Readonly<Record<string, string>>,
    params: Readonly<Record<string, string>> = {},
  ): Promise<T> => {
    const unset = Object.fromEntries(names.map((name) => [name, undefined]));
    const result = await run(
      [
        '--eval',
        CHILD,
        join(ROOT, script),
        JSON.stringify({ values: { ...SERVERLESS_YML, ...values }, params }),
      ],
      { ...unset, ...env },
    );
    if (result.code !== 0) {
      throw new Error(`the resolver's process failed (${result.code}): ${result.stderr}`);
    }
    const answer = JSON.parse(result.stdout) as { value?: T; error?: string };
    if (answer.error !== undefined) throw new Error(answer.error);
    return answer.value as T;
  };

/**
 * custom.settingsCheck (tools/serverless/settings-check.cjs) for `stage` in `region`, with exactly
 * `env` of the variables `names`: resolves when every setting passes, else rejects with the list
 * packaging refuses with.
 */
export const settingsCheckOf =
  (names: readonly string[]) =>
  (
    stage: string,
    region: string,
    env: Readonly<Record<string, string>>,
    params: Readonly<Record<string, string>> = {},
  ): Promise<unknown> =>
    resolverOf<unknown>('tools/serverless/settings-check.cjs', names)(
      { 'sls:stage': stage, 'self:provider.region': region },
      env,
      params,
    );
