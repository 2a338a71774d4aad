/**
 * The backing services of the load benchmark (relay-load.ts), each started for the run on a
 * free loopback port in a temporary directory and stopped at its end: Redis
 * (/usr/bin/redis-server, no persistence: the relay keeps nothing there that must survive
 * it) and PostgreSQL (initdb + pg_ctl from postgres-bin.ts's folder, trust auth on loopback,
 * pg_stat_statements loaded). PostgreSQL refuses to run as root, so as root its
 * commands run as the `postgres` user (runuser).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { postgresBin } from '../../packages/relay/test/postgres-bin.ts';

const run = promisify(execFile);
const PG_BIN = postgresBin();
const REDIS_SERVER = '/usr/bin/redis-server';

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} did not start within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

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
  const port = await freePort();
  const child: ChildProcess = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await until('redis-server', async () => (await run('/usr/bin/redis-cli', ['-p', String(port), 'ping'])).stdout.trim() === 'PONG');
  const client = new Redis({ port, host: '127.0.0.1' });
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid!,
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
      child.kill('SIGTERM');
      await exited;
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
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-load-pg-'));
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(group.trim()));
  }
  const pgCommand = (tool: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(PG_BIN, tool), ...args]) : run(join(PG_BIN, tool), args));
  const data = join(dir, 'data');
  await pgCommand('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions']);
  const port = await freePort();
  const settings = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses='127.0.0.1'",
    '-c shared_preload_libraries=pg_stat_statements',
    '-c pg_stat_statements.track=all',
    '-c max_connections=200',
  ].join(' ');
  await pgCommand('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', settings, '-w', '-t', '30', 'start']);
  const { stdout: pidFile } = await run('head', ['-1', join(data, 'postmaster.pid')]);
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const admin = new pg.Client({ connectionString: url('postgres') });
  await admin.connect();
  await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  return {
    pid: Number(pidFile.trim()),
    url,
    async createDatabase(name) {
      await admin.query(`CREATE DATABASE "${name}"`);
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
      await pgCommand('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
