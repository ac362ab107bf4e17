/**
 * TLS in front of a PostgreSQL server that has none (the run's database, PGlite or
 * TEST_DATABASE_URL), as a TLS-only server speaks it: a client's SSLRequest is answered `S`,
 * the TLS handshake is made with a certificate for 127.0.0.1 signed by a CA generated here
 * (openssl), and the decrypted stream (the startup message and what follows) is passed on to the
 * server; a client that does not ask for TLS is hung up on. A client that trusts `caFile` and
 * verifies the certificate gets through; one that trusts other CAs fails its handshake, as
 * against a server whose certificate it cannot verify. Used by the tests and the benchmark's
 * cold start, whose key-set server presents the same certificate.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket, createSecureContext } from 'node:tls';

/** PostgreSQL's SSLRequest: length 8, code 80877103. */
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 4, 210, 22, 47]);

export interface PostgresTlsFront {
  readonly port: number;
  /** The PEM file of the CA that signed the front's certificate. */
  readonly caFile: string;
  /** The front's certificate for 127.0.0.1 and its key (PEM), for another server of this CA. */
  readonly certificate: { readonly cert: string; readonly key: string };
  /** Connections whose TLS handshake succeeded and that were passed on. */
  readonly passedOn: () => number;
  close(): Promise<void>;
}

const openssl = (args: readonly string[], cwd: string): void => {
  execFileSync('openssl', args, { cwd, stdio: 'ignore' });
};

/** A CA and a certificate for 127.0.0.1 it signed, in `dir`. */
const makeCertificates = (dir: string): void => {
  openssl([
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=pre-traffic test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE',
    '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ], dir); // prettier-ignore
  writeFileSync(
    join(dir, 'server.ext'),
    'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n',
  );
  openssl([
    'req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1',
  ], dir); // prettier-ignore
  openssl([
    'x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial',
    '-out', 'server.crt', '-days', '1', '-extfile', 'server.ext',
  ], dir); // prettier-ignore
};

/** Starts the front on 127.0.0.1, passing on to `upstream` (host and port of the server). */
export const startPostgresTlsFront = async (upstream: {
  readonly host: string;
  readonly port: number;
}): Promise<PostgresTlsFront> => {
  const dir = mkdtempSync(join(tmpdir(), 'portal-pg-tls-'));
  makeCertificates(dir);
  const certificate = {
    cert: readFileSync(join(dir, 'server.crt'), 'utf8'),
    key: readFileSync(join(dir, 'server.key'), 'utf8'),
  };
  const secureContext = createSecureContext(certificate);
  const sockets = new Set<Socket>();
  let passedOn = 0;
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    track(client);
    client.once('readable', () => {
      const request = client.read(8) as Buffer | null;
      if (request === null || !request.equals(SSL_REQUEST)) {
        client.destroy();
        return;
      }
      client.write('S');
      const secure = new TLSSocket(client, { isServer: true, secureContext });
      track(secure);
      secure.once('secure', () => {
        passedOn += 1;
        const server = connect(upstream.port, upstream.host);
        track(server);
        secure.pipe(server).pipe(secure);
        server.once('close', () => secure.destroy());
        secure.once('close', () => server.destroy());
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    caFile: join(dir, 'ca.crt'),
    certificate,
    passedOn: () => passedOn,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
      }),
  };
};
