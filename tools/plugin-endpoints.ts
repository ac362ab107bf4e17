/**
 * What the plugin registry's two endpoints answer, as the catalogue declares them (spec 2.1,
 * 4.4, 4.6): their parameters and the JSON Schemas of their bodies, for the manifest and the
 * OpenAPI document. The chains that answer them are in middleware/compose.ts.
 */
import type { CustomAnswer, JsonSchema } from '../shared/answers';
import { MAX_BUNDLE_URL_LENGTH } from '../shared/plugins/deployment';
import { PORTAL_VERSION_PARAMETER } from '../shared/plugins/parameters';
import { DEFAULT_PORTAL_VERSION, PORTAL_VERSIONS } from '../shared/plugins/registry';

/** Plugin Object (spec 2.1). */
export const PLUGIN_OBJECT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['code', 'route', 'bundleUrl'],
  properties: {
    code: { type: 'string', description: 'Identifier of the plugin' },
    route: {
      type: 'string',
      description: 'Route segment under which the portal mounts the plugin',
    },
    bundleUrl: {
      type: 'string',
      description: "Location of the plugin's JavaScript bundle; may contain a bundle placeholder",
    },
  },
};

/** GET /v1/plugins. */
export const plugins: CustomAnswer = {
  kind: 'custom',
  id: 'plugins',
  title: 'Plugin registry',
  description:
    "The plugins available to the caller's brand and platforms for a portal version (spec 2.1, 4.4): a JSON array of Plugin Objects.",
  parameters: [
    {
      name: PORTAL_VERSION_PARAMETER,
      description: 'Portal version the plugins are deployed to (spec 9)',
      required: false,
      enum: PORTAL_VERSIONS,
      default: DEFAULT_PORTAL_VERSION,
    },
  ],
  responseSchema: { type: 'array', items: PLUGIN_OBJECT_SCHEMA },
  // No ownership step: the plugins of every platform in the token.
  errorStatuses: [400, 401, 500],
};

/** Kept exactly as deployed: a placeholder such as `{bundle}` is not a URI character. */
const BUNDLE_URL_SCHEMA: JsonSchema = {
  type: 'string',
  maxLength: MAX_BUNDLE_URL_LENGTH,
  description:
    'The bundle, `<cdn_url>/<region>/reports/<filename>`: an absolute https URL (http only when the host is written as localhost, 127.0.0.1 or [::1]), with nothing before the host (no user name, password or @), of printable ASCII without space, quotes, backtick, <, >, backslash, HTML character references or `${`; may contain a bundle placeholder such as `{bundle}`',
};

/** PUT /v1/plugins/{code}. */
export const deployPlugin: CustomAnswer = {
  kind: 'custom',
  id: 'deploy-plugin',
  title: 'Plugin deployment',
  description:
    'Points a plugin of a portal version at a new bundle (the `PUT {update_url}` call of spec 4.6). `v2` makes it available to the v2 portal (devnext) without touching `v1`.',
  parameters: [],
  requestBodySchema: {
    type: 'object',
    required: ['bundleUrl', 'portalVersion'],
    properties: {
      bundleUrl: BUNDLE_URL_SCHEMA,
      portalVersion: { type: 'string', enum: PORTAL_VERSIONS },
    },
  },
  responseSchema: {
    type: 'object',
    required: ['data'],
    properties: {
      data: {
        type: 'object',
        required: ['code', 'portalVersion', 'bundleUrl'],
        properties: {
          code: { type: 'string' },
          portalVersion: { type: 'string', enum: PORTAL_VERSIONS },
          bundleUrl: BUNDLE_URL_SCHEMA,
        },
      },
    },
  },
  // 401: no key or an unknown key; 403: the key of another plugin.
  errorStatuses: [400, 401, 403, 500],
};
