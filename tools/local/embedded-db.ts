/**
 * The embedded default database: PGlite (PostgreSQL compiled to WebAssembly) in this process,
 * served over the PostgreSQL wire protocol on 127.0.0.1 so the functions reach it exactly as
 * they reach a real server, through DATABASE_URL.
 */
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedDatabase {
  readonly url: string;
  readonly close: () => Promise<void>;
}

export const startEmbeddedDatabase = async (port = 0): Promise<EmbeddedDatabase> => {
  const db = await PGlite.create();
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port, maxConnections: 32 });
  await server.start();
  const [host, bound] = server.getServerConn().split(':');
  return {
    url: `postgres://postgres@${host ?? '127.0.0.1'}:${bound ?? String(port)}/postgres`,
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
};
