/**
 * serverless.yml's `functions:`, generated from the catalogue: one function per endpoint,
 * named by its id in camelCase, with its handler `functions/<id>.handler`, its description,
 * and an API Gateway route for its method and for OPTIONS (spec 4.3) on each of its paths.
 * scripts/serverless/functions.cjs hands this to serverless.yml through `${file(...)}`, so the
 * YAML holds no per-function block to keep in step.
 */
import { catalogue as registry, type Endpoint } from '../shared/catalogue';
import { answerSummary } from './endpoints';
import { validateCatalogue } from './validate';

export interface HttpEvent {
  readonly http: { readonly path: string; readonly method: string };
}

export interface ServerlessFunction {
  readonly handler: string;
  readonly description: string;
  readonly events: readonly HttpEvent[];
}

/** The `functions:` block of a catalogue; throws a TypeError when the catalogue is invalid. */
export const serverlessFunctions = (
  catalogue: readonly Endpoint[] = registry,
): Record<string, ServerlessFunction> => {
  validateCatalogue(catalogue);
  return Object.fromEntries(
    catalogue.map((endpoint) => [
      endpoint.function,
      {
        handler: `${endpoint.handlerFile.replace(/\.ts$/, '')}.handler`,
        description: answerSummary(endpoint.answers).description,
        events: endpoint.paths.flatMap((path) => [
          { http: { path, method: endpoint.method.toLowerCase() } },
          { http: { path, method: 'options' } },
        ]),
      },
    ]),
  );
};
