/**
 * Child process of the load benchmark (relay-load.ts): one Hocuspocus instance, set up as
 * Hocuspocus documents a horizontally scaled deployment: `@hocuspocus/extension-redis`
 * (pub/sub fan-out between instances, a Redis lock around storing) and
 * `@hocuspocus/extension-database` storing each document's whole state in PostgreSQL
 * (debounced by Hocuspocus: 2 s after the last change, at most 10 s). Clients authenticate
 * with the same signed tokens the zeromem relay checks (`verifyToken`).
 *
 *   node --import tsx test/bench/hocuspocus-host.ts <port> <redis url> <postgres url> <secret>
 *
 * Prints its ws:// URL on stdout once listening; SIGTERM stores open documents and exits.
 */
import { Database } from '@hocuspocus/extension-database';
import { Redis } from '@hocuspocus/extension-redis';
import { Server } from '@hocuspocus/server';
import pg from 'pg';
import { verifyToken } from '@zeromem/relay';

const [port, redisUrl, postgresUrl, secret] = process.argv.slice(2) as [string, string, string, string];
const redis = new URL(redisUrl);
const pool = new pg.Pool({ connectionString: postgresUrl, max: 10 });
await pool.query('CREATE TABLE IF NOT EXISTS documents (name text PRIMARY KEY, data bytea NOT NULL)');

const server = new Server({
  port: Number(port),
  address: '127.0.0.1',
  quiet: true,
  async onAuthenticate({ token, documentName }) {
    const grant = await verifyToken(token, secret);
    // The benchmark's clients all write; a read-only grant is refused rather than half-honoured.
    if (grant.rooms.get(documentName) !== 'read-write') throw new Error('room not granted for writing');
    return {};
  },
  extensions: [
    new Redis({ host: redis.hostname, port: Number(redis.port) }),
    new Database({
      fetch: async ({ documentName }) => {
        const { rows } = await pool.query<{ data: Buffer }>('SELECT data FROM documents WHERE name = $1', [documentName]);
        return rows[0] ? new Uint8Array(rows[0].data) : null;
      },
      store: async ({ documentName, state }) => {
        await pool.query('INSERT INTO documents (name, data) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET data = EXCLUDED.data', [documentName, state]);
      },
    }),
  ],
});
await server.listen();
process.stdout.write(`ws://127.0.0.1:${port}\n`);

process.once('SIGTERM', async () => {
  await server.destroy();
  await pool.end();
  process.exit(0);
});
