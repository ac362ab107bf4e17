/**
 * The plugin registry (spec 2.1, 4.4, 4.6, 9): which plugins a caller's platforms are offered
 * for a portal version, the deployment of a bundle to one portal version, and the deployment
 * keys. A port, and its PostgreSQL adapter; rows are checked at runtime before they leave.
 *
 * `bundleUrl` is opaque here: it is stored and returned exactly as deployed. A bundle
 * placeholder such as `{bundle}` is for the portal client to substitute; this service never
 * expands, encodes or normalises it.
 */
import type { Sql } from '../db/client';
import { text } from '../db/rows';
import type { ApiKeyLookup, KeyHash } from './api-keys';

export const PORTAL_VERSIONS = ['v1', 'v2'] as const;
export type PortalVersion = (typeof PORTAL_VERSIONS)[number];
export const DEFAULT_PORTAL_VERSION: PortalVersion = 'v1';

export const isPortalVersion = (value: string): value is PortalVersion =>
  (PORTAL_VERSIONS as readonly string[]).includes(value);

/** What a plugin code can be (the check constraint of `plugins.code`). */
export const PLUGIN_CODE = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Spec 2.1, in the order of its table. */
export interface PluginObject {
  readonly code: string;
  readonly route: string;
  readonly bundleUrl: string;
}

/** What a deployment stored (the `data` of the deployment answer). */
export interface PluginDeployment {
  readonly code: string;
  readonly portalVersion: PortalVersion;
  readonly bundleUrl: string;
}

export interface PluginRegistry extends ApiKeyLookup {
  /**
   * The plugins that have a bundle for the portal version and are offered on at least one of
   * the platforms, ordered by code.
   */
  available(
    platformIds: readonly string[],
    portalVersion: PortalVersion,
  ): Promise<readonly PluginObject[]>;
  /** Stores the plugin's bundle for one portal version; the other version is left as it is. */
  deploy(deployment: PluginDeployment): Promise<PluginDeployment>;
}

const portalVersion = (row: Record<string, unknown>, key: string): PortalVersion => {
  const value = text(row, key);
  if (!isPortalVersion(value)) throw new TypeError(`plugin row: ${key} is not a portal version`);
  return value;
};

export const createPostgresPluginRegistry = (sql: Sql): PluginRegistry => ({
  async available(platformIds, version) {
    if (platformIds.length === 0) return [];
    const rows = await sql`
      select p.code, p.route, v.bundle_url
      from plugins p
      join plugin_versions v on v.plugin_code = p.code and v.portal_version = ${version}
      where exists (
        select 1 from plugin_platforms pp
        where pp.plugin_code = p.code and pp.platform_id = any(${[...new Set(platformIds)]})
      )
      order by p.code collate "C"`;
    return rows.map((row): PluginObject => ({
      code: text(row, 'code'),
      route: text(row, 'route'),
      bundleUrl: text(row, 'bundle_url'),
    }));
  },

  async deploy({ code, portalVersion: version, bundleUrl }) {
    const rows = await sql`
      insert into plugin_versions (plugin_code, portal_version, bundle_url, updated_at)
      values (${code}, ${version}, ${bundleUrl}, now())
      on conflict (plugin_code, portal_version)
        do update set bundle_url = excluded.bundle_url, updated_at = excluded.updated_at
      returning plugin_code, portal_version, bundle_url`;
    const [row] = rows;
    if (!row) throw new TypeError('plugin deployment: no row returned');
    return {
      code: text(row, 'plugin_code'),
      portalVersion: portalVersion(row, 'portal_version'),
      bundleUrl: text(row, 'bundle_url'),
    };
  },

  async activeKeyHashes(pluginCode) {
    const rows = await sql`
      select key_sha256 from plugin_api_keys
      where plugin_code = ${pluginCode} and revoked_at is null`;
    return rows.map((row): KeyHash => text(row, 'key_sha256'));
  },

  async pluginOfKey(keyHash) {
    const [row] = await sql`
      select plugin_code from plugin_api_keys
      where key_sha256 = ${keyHash} and revoked_at is null`;
    return row ? text(row, 'plugin_code') : undefined;
  },
});
