/**
 * TLS to the database: which CAs verify-full trusts (DB_CA) and postgres.js's `ssl` option for
 * a host. docs/database.md, "TLS to the database".
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { createSecureContext, type ConnectionOptions, type SecureContext } from 'node:tls';
import { rdsCertificates, rdsProxyCertificates, rdsRegionFor } from './rds-cas';

/**
 * The CAs trusted for verify-full (DB_CA): `rds`, the RDS CAs of the database's region;
 * `rds-proxy`, the Amazon Root CAs RDS Proxy chains to; `node`, Node's built-in roots; or a PEM
 * file (what packaging turns `rds` and `rds-proxy` into).
 */
export type DatabaseCa = 'rds' | 'rds-proxy' | 'node' | { readonly file: string };

/**
 * `verify-full`: the server's certificate must chain to a CA of `ca` and name the host.
 * `region` (AWS_REGION) is the region whose RDS CAs `rds` trusts when the host names none.
 * `require`: encrypted, nothing verified. `disable`: plain.
 */
export type DatabaseTls =
  | { readonly mode: 'verify-full'; readonly ca: DatabaseCa; readonly region?: string }
  | { readonly mode: 'require' }
  | { readonly mode: 'disable' };

/**
 * The PEM certificates `ca` trusts for `host`, `region` standing in for a host that names none;
 * undefined for Node's built-in roots (the default context).
 */
export const caCertificates = (
  ca: DatabaseCa,
  host: string,
  region?: string,
): readonly string[] | undefined => {
  if (ca === 'node') return undefined;
  if (ca === 'rds') return rdsCertificates(rdsRegionFor(host, region));
  if (ca === 'rds-proxy') return rdsProxyCertificates();
  return [readFileSync(ca.file, 'utf8')];
};

/** One secure context per list of CAs for the container's life, whatever pools are opened. */
const secureContexts = new Map<string, SecureContext>();

const secureContextFor = (
  ca: DatabaseCa,
  host: string,
  region: string | undefined,
): SecureContext | undefined => {
  const key =
    ca === 'rds'
      ? `rds:${rdsRegionFor(host, region)}`
      : typeof ca === 'string'
        ? ca
        : `file:${ca.file}`;
  let context = secureContexts.get(key);
  if (context === undefined) {
    const certificates = caCertificates(ca, host, region);
    if (certificates === undefined) return undefined;
    context = createSecureContext({ ca: [...certificates] });
    secureContexts.set(key, context);
  }
  return context;
};

/**
 * postgres.js's `ssl` option: false, or the tls.connect options it merges into its own when it
 * upgrades a socket after the SSLRequest — our socket factory's sockets too (it upgrades any
 * socket once `ssl` is set). For verify-full the CAs of `ca` are parsed once per container into
 * one secure context that every connection shares, never per connection, and only into the
 * database's TLS: the process's default roots (the key-set fetch) are untouched. `node` uses
 * the default context. A host name is checked through SNI (`servername`); an IP address, which
 * SNI may not carry, through `host`.
 */
export const tlsOptions = (
  tls: DatabaseTls | undefined,
  host: string,
): ConnectionOptions | false => {
  if (!tls || tls.mode === 'disable') return false;
  if (tls.mode === 'require') return { rejectUnauthorized: false };
  const secureContext = secureContextFor(tls.ca, host, tls.region);
  return {
    rejectUnauthorized: true,
    ...(secureContext === undefined ? {} : { secureContext }),
    ...(isIP(host) ? { host, servername: undefined } : { servername: host }),
  };
};
