-- The plugin registry (spec 2.1, 4.4, 4.6, 9): plugins, the platforms each is offered on, one
-- bundle per portal version, and the API keys that may deploy a plugin (stored hashed only).

create table plugins (
  code  text primary key check (code ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  route text not null unique check (route ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  title text not null check (title <> '')
);

-- Where a plugin is offered: a platform's Global Entity Id (spec 2.3). Platforms belong to one
-- brand, so offering a plugin on a brand's platforms offers it to that brand.
create table plugin_platforms (
  plugin_code text not null references plugins (code) on delete cascade,
  platform_id text not null check (platform_id <> ''),
  primary key (plugin_code, platform_id)
);

-- The registry reads "plugins on any of these platforms": an index on the platform.
create index plugin_platforms_platform_id on plugin_platforms (platform_id, plugin_code);

-- The bundle a portal version loads. Deploying to v2 replaces the v2 row only (spec 9).
-- bundle_url is stored exactly as deployed: a placeholder such as {bundle} stays as sent.
create table plugin_versions (
  plugin_code    text not null references plugins (code) on delete cascade,
  portal_version text not null check (portal_version in ('v1', 'v2')),
  bundle_url     text not null check (length(bundle_url) between 1 and 2048),
  updated_at     timestamptz not null default now(),
  primary key (plugin_code, portal_version)
);

-- API keys of the deployment call (spec 4.6): only the SHA-256 of a key is kept, as 64
-- lowercase hex digits. A key belongs to exactly one plugin; revoked keys stay for audit.
create table plugin_api_keys (
  id          bigint generated always as identity primary key,
  plugin_code text not null references plugins (code) on delete cascade,
  key_sha256  text not null unique check (key_sha256 ~ '^[0-9a-f]{64}$'),
  label       text not null check (label <> ''),
  created_at  timestamptz not null default now(),
  revoked_at  timestamptz
);

create index plugin_api_keys_active on plugin_api_keys (plugin_code) where revoked_at is null;
