import { type Socket, createServer } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../src/storage/postgres-store.ts';
import { usePostgres } from '../../../test/kit/services.ts';

const services = usePostgres();

describe('PostgreSQL store under load', () => {
  // Every pooled connection is busy (appends waiting on a row lock, as under heavy load or a
  // starved CPU) for longer than a connection may take to open: the queries waiting for a
  // connection must wait, not fail as "storage unavailable" (which unloads rooms).
  it('waits for a pooled connection however long every one is busy, and stores everything', async () => {
    const url = await services.postgres.database();
    const store = await PostgresStore.connect(url);
    const room = 'u=alice;s=pool-wait';
    await store.append([{ room, updates: [new Uint8Array([1])] }]);
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT head FROM zeromem_rooms WHERE room = $1 FOR UPDATE', [room]);
      // More appends than the pool has connections: the last ones wait for one.
      const appends = Array.from({ length: 12 }, (_, i) => store.append([{ room, updates: [new Uint8Array([i + 2])] }]).then(() => 'stored', (err: { code?: string }) => err.code ?? 'failed'));
      // Longer than the 5 s a new connection may take to open.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      await locker.query('COMMIT');
      expect(await Promise.all(appends)).toEqual(Array.from({ length: 12 }, () => 'stored'));
      expect((await store.since(room, 0)).head).toBe(13);
    } finally {
      await locker.end();
      await store.close();
    }
  }, 30_000);

  it('still counts a server that accepts connections but never answers as unavailable', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      await expect(PostgresStore.connect(`postgres://postgres@127.0.0.1:${port}/postgres`)).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  }, 30_000);
});
