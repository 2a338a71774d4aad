import pg from 'pg';
import { RelayError } from '@zeromem/protocol';
import { type Revocation, type RoomAppend, type RoomStorage, type StoredRoom, totalBytes } from './room-storage.ts';

/**
 * The tables, created if missing. A room's updates are numbered densely per room (`seq`
 * 1, 2, 3, ...) from its row in `zeromem_rooms`, which every append locks: appends of one
 * room commit in `seq` order, whichever instance makes them, so an instance that was sent
 * update n+2 knows it missed n+1. `data` is stored uncompressed (STORAGE EXTERNAL), so
 * what compaction removed can be checked for on disk.
 */
const SCHEMA = `
BEGIN;
-- Instances starting together must not race on CREATE TABLE.
SELECT pg_advisory_xact_lock(7262867);
CREATE TABLE IF NOT EXISTS zeromem_rooms (room text PRIMARY KEY, head bigint NOT NULL);
CREATE TABLE IF NOT EXISTS zeromem_updates (room text NOT NULL, seq bigint NOT NULL, data bytea NOT NULL, PRIMARY KEY (room, seq));
ALTER TABLE zeromem_updates ALTER COLUMN data SET STORAGE EXTERNAL;
CREATE TABLE IF NOT EXISTS zeromem_revocations (kind text NOT NULL, value text NOT NULL, revoked_at timestamptz NOT NULL, expires_at timestamptz NOT NULL, PRIMARY KEY (kind, value));
COMMIT;
`;

/**
 * One statement (so one round trip and one commit) for the appends of several rooms: take
 * each room's `n` numbers from its head, insert its updates under them. The rooms' rows are
 * locked in room order, so two instances' statements never wait for each other in a cycle.
 */
const APPEND = `
WITH counts AS (
  SELECT room, n FROM unnest($1::text[], $2::bigint[]) AS c(room, n)
), heads AS (
  INSERT INTO zeromem_rooms AS r (room, head) SELECT room, n FROM counts ORDER BY room
  ON CONFLICT (room) DO UPDATE SET head = r.head + excluded.head RETURNING room, head
)
INSERT INTO zeromem_updates (room, seq, data)
SELECT u.room, heads.head - counts.n + u.ord, u.data
FROM unnest($3::text[], $4::bigint[], $5::bytea[]) AS u(room, ord, data) JOIN heads USING (room) JOIN counts USING (room)
RETURNING room, seq`;

/** SQLSTATE classes meaning "the server cannot be reached or is going away": retry later. */
const UNAVAILABLE_SQLSTATE = /^(08|57P0|53)/;

/**
 * The relay's durable storage shared by every instance: PostgreSQL through a `pg` pool. An
 * append resolves once PostgreSQL committed it (with the server's default
 * `synchronous_commit = on`, fsynced to its WAL), so what an instance forwards survives
 * the loss of any instance. Compaction deletes a room's rows and inserts one merged state
 * in one transaction: the deleted rows are gone from every query at once and from the
 * table files at the next VACUUM (see docs/SCALING.md).
 */
export class PostgresStore implements RoomStorage {
  readonly kind = 'postgres';
  durableWrites = 0;
  storedUpdates = 0;

  private constructor(private readonly pool: pg.Pool) {}

  /** Connects and creates the tables if missing; rejects with STORAGE_UNAVAILABLE if PostgreSQL cannot be reached. */
  static async connect(url: string): Promise<PostgresStore> {
    // Only opening a connection is bounded (a server that does not answer is unavailable). A
    // wait for a pooled connection is not: with every connection busy (heavy load, a starved
    // CPU) the pool's own timeout would fail queries as "unavailable" and unload rooms.
    const pool = new pg.Pool({ connectionString: url, max: 8, idleTimeoutMillis: 30_000, Client: ConnectTimeoutClient });
    // An idle client whose server went away emits an error on the pool: the next query gets a fresh one.
    pool.on('error', () => {});
    const store = new PostgresStore(pool);
    try {
      await store.query('create the tables', SCHEMA);
    } catch (err) {
      await pool.end();
      throw err;
    }
    return store;
  }

  async load(room: string): Promise<StoredRoom> {
    return this.since(room, 0);
  }

  async since(room: string, head: number): Promise<StoredRoom> {
    const { rows } = await this.query<{ seq: string; data: Buffer }>(`read room ${JSON.stringify(room)}`, 'SELECT seq, data FROM zeromem_updates WHERE room = $1 AND seq > $2 ORDER BY seq', [room, head]);
    const updates = rows.map((row) => new Uint8Array(row.data.buffer, row.data.byteOffset, row.data.byteLength));
    return { updates, bytes: totalBytes(updates), head: rows.length > 0 ? Number(rows.at(-1)!.seq) : head };
  }

  async heads(rooms: readonly string[]): Promise<Map<string, number>> {
    if (rooms.length === 0) return new Map();
    const { rows } = await this.query<{ room: string; head: string }>('read room heads', 'SELECT room, head FROM zeromem_rooms WHERE room = ANY($1::text[])', [rooms]);
    return new Map(rows.map((row) => [row.room, Number(row.head)]));
  }

  async append(appends: readonly RoomAppend[]): Promise<number[]> {
    const rooms: string[] = [];
    const ords: number[] = [];
    const data: Buffer[] = [];
    for (const { room, updates } of appends) {
      updates.forEach((update, i) => {
        rooms.push(room);
        ords.push(i + 1);
        data.push(Buffer.from(update.buffer, update.byteOffset, update.byteLength));
      });
    }
    const { rows } = await this.query<{ room: string; seq: string }>('store updates', APPEND, [appends.map((a) => a.room), appends.map((a) => a.updates.length), rooms, ords, data]);
    this.durableWrites++;
    this.storedUpdates += data.length;
    const heads = new Map<string, number>();
    for (const row of rows) heads.set(row.room, Math.max(heads.get(row.room) ?? 0, Number(row.seq)));
    return appends.map(({ room }) => heads.get(room)!);
  }

  async compact(room: string, head: number, encode: (missing: Uint8Array[]) => Uint8Array): Promise<{ head: number; bytes: number } | undefined> {
    const client = await this.connectClient('compact a room');
    // A connection cut while checked out emits 'error' on the client (a crash if unheard); the query then rejects too.
    let broken: Error | undefined;
    const onError = (err: Error): void => void (broken = err);
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      // Holds every other instance's appends to this room until COMMIT.
      const locked = await client.query<{ head: string }>('SELECT head FROM zeromem_rooms WHERE room = $1 FOR UPDATE', [room]);
      if (locked.rows.length === 0) {
        await client.query('ROLLBACK');
        return undefined;
      }
      const current = Number(locked.rows[0]!.head);
      const missing = await client.query<{ data: Buffer }>('SELECT data FROM zeromem_updates WHERE room = $1 AND seq > $2 ORDER BY seq', [room, head]);
      const state = encode(missing.rows.map((row) => new Uint8Array(row.data.buffer, row.data.byteOffset, row.data.byteLength)));
      await client.query('DELETE FROM zeromem_updates WHERE room = $1', [room]);
      await client.query('INSERT INTO zeromem_updates (room, seq, data) VALUES ($1, $2, $3)', [room, current, Buffer.from(state.buffer, state.byteOffset, state.byteLength)]);
      await client.query('COMMIT');
      this.durableWrites++;
      return { head: current, bytes: state.byteLength };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw storageError('compact a room', err);
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  async revoke(revocation: Revocation): Promise<void> {
    await this.query(
      'store a revocation',
      `INSERT INTO zeromem_revocations (kind, value, revoked_at, expires_at) VALUES ($1, $2, to_timestamp($3 / 1000.0), to_timestamp($4 / 1000.0))
       ON CONFLICT (kind, value) DO UPDATE SET revoked_at = excluded.revoked_at, expires_at = excluded.expires_at`,
      [revocation.kind, revocation.value, revocation.revokedAt, revocation.expiresAt],
    );
  }

  async revocations(): Promise<Revocation[]> {
    const { rows } = await this.query<{ kind: 'token' | 'subject'; value: string; revoked_at: Date; expires_at: Date }>(
      'read revocations',
      'SELECT kind, value, revoked_at, expires_at FROM zeromem_revocations WHERE expires_at > now()',
    );
    return rows.map((row) => ({ kind: row.kind, value: row.value, revokedAt: row.revoked_at.getTime(), expiresAt: row.expires_at.getTime() }));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async query<R extends pg.QueryResultRow>(what: string, text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(text, values);
    } catch (err) {
      throw storageError(what, err);
    }
  }

  private async connectClient(what: string): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (err) {
      throw storageError(what, err);
    }
  }
}

/** How long opening a connection to PostgreSQL may take before it counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5000;

/** A client whose connecting times out by itself, so the pool needs no timeout (which would also bound waits in its queue). */
class ConnectTimeoutClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super({ ...(typeof config === 'string' ? { connectionString: config } : config), connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  }
}

/** STORAGE_UNAVAILABLE for a connection that failed or went away, STORAGE_FAILED for anything PostgreSQL refused. */
function storageError(what: string, err: unknown): RelayError {
  const code = (err as { code?: unknown }).code;
  const unavailable = typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || UNAVAILABLE_SQLSTATE.test(code);
  return new RelayError(unavailable ? 'STORAGE_UNAVAILABLE' : 'STORAGE_FAILED', `Cannot ${what} in PostgreSQL: ${(err as Error).message}`, { cause: err });
}
