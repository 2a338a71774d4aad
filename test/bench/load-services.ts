/**
 * The backing services of the load benchmark (relay-load.ts): the test kit's throwaway Redis
 * and PostgreSQL (test/kit/services.ts: free loopback ports, temporary directories, no Redis
 * persistence), with what the benchmark reads of them: Redis' commands per command name, and
 * PostgreSQL's statements (pg_stat_statements, loaded at start), commits, rows and WAL.
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import { startPostgres as startTestPostgres, startRedis as startTestRedis } from '../kit/services.ts';

export { freePort } from '../kit/services.ts';

/** A running Redis. */
export interface RedisService {
  url: string;
  pid: number;
  /** Calls per command so far (INFO commandstats), without the benchmark's own INFO calls. */
  commandCalls(): Promise<Record<string, number>>;
  flush(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<RedisService> {
  const redis = await startTestRedis();
  const client = new Redis({ port: redis.port, host: '127.0.0.1' });
  return {
    url: redis.url,
    pid: redis.pid,
    async commandCalls() {
      const info = await client.info('commandstats');
      const calls: Record<string, number> = {};
      for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (match[1] !== 'info') calls[match[1]!] = Number(match[2]);
      return calls;
    },
    async flush() {
      await client.flushall();
    },
    async stop() {
      client.disconnect();
      await redis.stop();
    },
  };
}

/** Cumulative activity counters of one database (deltas of two readings are the work done in between). */
export interface PgCounters {
  /** Statements executed in the database (pg_stat_statements calls). */
  statements: number;
  /** Rows returned or affected by them (pg_stat_statements rows). */
  statementRows: number;
  /** Committed transactions (pg_stat_database). */
  commits: number;
  /** Rows inserted, updated and deleted (pg_stat_database). */
  rowsInserted: number;
  rowsUpdated: number;
  rowsDeleted: number;
  /** Write-ahead log written by the whole cluster, bytes (pg_current_wal_lsn). */
  walBytes: number;
  /** Size of the database on disk, bytes. */
  databaseBytes: number;
}

/** A running PostgreSQL cluster. */
export interface PostgresService {
  pid: number;
  /** A connection URL for `database` (created by {@link createDatabase}). */
  url(database: string): string;
  createDatabase(name: string): Promise<void>;
  dropDatabase(name: string): Promise<void>;
  counters(database: string): Promise<PgCounters>;
  stop(): Promise<void>;
}

export async function startPostgres(): Promise<PostgresService> {
  const postgres = await startTestPostgres({ settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' } });
  const url = (database: string) => postgres.url.replace(/\/postgres$/, `/${database}`);
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  return {
    pid: postgres.pid,
    url,
    async createDatabase(name) {
      await postgres.database(name);
    },
    async dropDatabase(name) {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
    async counters(database) {
      const { rows } = await admin.query(
        `SELECT
           (SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1) AS statements,
           (SELECT coalesce(sum(s.rows), 0) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1) AS statement_rows,
           xact_commit AS commits, tup_inserted, tup_updated, tup_deleted,
           pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') AS wal_bytes,
           pg_database_size($1) AS database_bytes
         FROM pg_stat_database WHERE datname = $1`,
        [database],
      );
      const r = rows[0] as Record<string, string>;
      return {
        statements: Number(r.statements),
        statementRows: Number(r.statement_rows),
        commits: Number(r.commits),
        rowsInserted: Number(r.tup_inserted),
        rowsUpdated: Number(r.tup_updated),
        rowsDeleted: Number(r.tup_deleted),
        walBytes: Number(r.wal_bytes),
        databaseBytes: Number(r.database_bytes),
      };
    },
    async stop() {
      await admin.end().catch(() => undefined);
      await postgres.stop();
    },
  };
}
