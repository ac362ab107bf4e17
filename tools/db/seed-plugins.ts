/**
 * The sample plugin registry: plugin `reports` (route `reports`) offered on every sample
 * platform, with a v1 bundle, a v2 bundle on the portal preview's emulated CDN and one
 * deployment key for local development. Replaces whatever the plugin tables held; run inside
 * the caller's transaction when it has one.
 */
import type postgres from 'postgres';
import { hashApiKey } from '../../shared/plugins/api-keys';
import { SAMPLE_OWNERS } from './sample-data';

/**
 * The plain value of the local deployment key: for `npm start` and the tests only. Only its
 * SHA-256 is stored; a real environment gets its own keys (`generateApiKey`).
 */
export const LOCAL_PLUGIN_API_KEY = 'local-plugin-key-change-me';

export const SAMPLE_PLUGIN = { code: 'reports', route: 'reports', title: 'Reports' } as const;

/** The seeded v1 bundle; `{bundle}` is the placeholder the portal substitutes. */
export const SAMPLE_PLUGIN_V1_BUNDLE_URL = 'https://cdn.example.com/eu/reports/{bundle}';

/**
 * The seeded v2 bundle: the reference plugin on the CDN the portal preview emulates at the
 * default ports (docs/preview.md). `npm start` deploys the bundle of its own preview origin over
 * it once the API is up, so a preview on other ports loads its own.
 */
export const SAMPLE_PLUGIN_V2_BUNDLE_URL = 'http://localhost:3001/cdn/eu/reports/{bundle}';

/** Every platformId of the sample owners' restaurants. */
export const SAMPLE_PLATFORM_IDS: readonly string[] = [
  ...new Set(
    SAMPLE_OWNERS.flatMap((owner) =>
      owner.restaurants.flatMap((restaurant) => restaurant.platforms.map((p) => p.platformId)),
    ),
  ),
].sort();

export const seedPlugins = async (sql: postgres.ISql): Promise<void> => {
  const { code, route, title } = SAMPLE_PLUGIN;
  await sql`truncate plugin_api_keys, plugin_versions, plugin_platforms, plugins`;
  await sql`insert into plugins (code, route, title) values (${code}, ${route}, ${title})`;
  await sql`insert into plugin_platforms (plugin_code, platform_id)
            select ${code}, unnest(${[...SAMPLE_PLATFORM_IDS]}::text[])`;
  await sql`insert into plugin_versions (plugin_code, portal_version, bundle_url)
            values (${code}, 'v1', ${SAMPLE_PLUGIN_V1_BUNDLE_URL}),
                   (${code}, 'v2', ${SAMPLE_PLUGIN_V2_BUNDLE_URL})`;
  await sql`insert into plugin_api_keys (plugin_code, key_sha256, label)
            values (${code}, ${hashApiKey(LOCAL_PLUGIN_API_KEY)}, 'local development')`;
};
