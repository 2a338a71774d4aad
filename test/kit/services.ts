import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

/**
 * Throwaway Redis and PostgreSQL servers for tests and benchmarks: real Debian binaries
 * (`.ci/run` installs `redis-server` and `postgresql`), each on a free loopback port with its
 * own temporary directory, stopped and removed by `stop()`. PostgreSQL refuses to run as
 * root: as root the server runs as the `postgres` user the Debian package creates (or `nobody`).
 */

/**
 * The folder of PostgreSQL's server programs (initdb, postgres): `ZEROMEM_PG_BIN`, else the
 * newest version Debian's `postgresql` package installed under /usr/lib/postgresql.
 */
export function postgresBin(): string {
  if (process.env.ZEROMEM_PG_BIN) return process.env.ZEROMEM_PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  return join(root, versions[0] ?? '15', 'bin');
}

/** A free loopback TCP port (free when asked; tests retry a start that lost it). */
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

async function waitFor(check: () => Promise<boolean>, what: string, child: ChildProcess, output: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited: ${output()}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} did not start: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A running throwaway Redis. */
export interface TestRedis {
  url: string;
  port: number;
  /** The server's process id (a new one after {@link restart}). */
  readonly pid: number;
  /** Kills it (SIGKILL: every key is lost, as nothing is persisted) and starts a fresh one on the same port. */
  restart(): Promise<void>;
  /** Kills it for good. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a throwaway Redis (no persistence). */
export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-redis-'));
  const port = await freePort();
  let child: ChildProcess;
  let output = '';
  const launch = async (): Promise<void> => {
    output = '';
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(async () => output.includes('Ready to accept connections'), 'redis-server', child, () => output);
  };
  await launch();
  const kill = async (): Promise<void> => {
    child.kill('SIGKILL');
    await exited(child);
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return child.pid!;
    },
    async restart() {
      await kill();
      await launch();
    },
    kill,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A running throwaway PostgreSQL. */
export interface TestPostgres {
  /** The superuser's URL of the `postgres` database. */
  url: string;
  port: number;
  /** The server's (postmaster's) process id (a new one after {@link resume}). */
  readonly pid: number;
  /** Its data directory (to grep for bytes that must be gone). */
  dataDir: string;
  /** Stops it (fast shutdown: connections are cut). */
  halt(): Promise<void>;
  /** Starts it again on the same port and directory. */
  resume(): Promise<void>;
  /** Creates a fresh database (named `name`, or the next `test_<n>`); resolves with its URL. */
  database(name?: string): Promise<string>;
  /** Runs one SQL statement as the superuser (in `database`, default `postgres`). */
  sql<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[], database?: string): Promise<R[]>;
  stop(): Promise<void>;
}

/** The user PostgreSQL runs as: the caller, or (as root, which it refuses) `postgres` or `nobody`. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name]).toString().trim());
      const gid = Number(execFileSync('id', ['-g', name]).toString().trim());
      return { uid, gid };
    } catch {
      // try the next
    }
  }
  throw new Error('running as root and neither a postgres nor a nobody user exists to run PostgreSQL as');
}

/** Options of {@link startPostgres}. */
export interface PostgresOptions {
  /** Server settings (`-c name=value`), e.g. `shared_preload_libraries: 'pg_stat_statements'`. */
  settings?: Record<string, string>;
}

/** Starts a throwaway PostgreSQL (trust auth on loopback, fsync on). */
export async function startPostgres(options: PostgresOptions = {}): Promise<TestPostgres> {
  const root = mkdtempSync(join(tmpdir(), 'zeromem-pg-'));
  const dataDir = join(root, 'data');
  const user = serverUser();
  if (user) chownSync(root, user.uid, user.gid);
  const as = user ? { uid: user.uid, gid: user.gid } : {};
  execFileSync(join(postgresBin(), 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'], { ...as, stdio: 'pipe', cwd: root });
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let child: ChildProcess;
  let output = '';
  let databases = 0;
  const settings = Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  const ping = async (): Promise<boolean> => {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } finally {
      await client.end().catch(() => {});
    }
  };
  const launch = async (): Promise<void> => {
    output = '';
    child = spawn(join(postgresBin(), 'postgres'), ['-D', dataDir, '-p', String(port), '-h', '127.0.0.1', '-k', root, '-c', 'fsync=on', '-c', 'max_connections=200', ...settings], { ...as, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(ping, 'postgres', child, () => output);
  };
  await launch();
  const halt = async (): Promise<void> => {
    child.kill('SIGINT');
    await exited(child);
  };
  const sql = async <R extends pg.QueryResultRow>(text: string, values?: unknown[], database?: string): Promise<R[]> => {
    const client = new pg.Client({ connectionString: database ?? url });
    await client.connect();
    try {
      return (await client.query<R>(text, values)).rows;
    } finally {
      await client.end();
    }
  };
  const database = async (name = `test_${++databases}`): Promise<string> => {
    await sql(`CREATE DATABASE "${name}"`);
    return url.replace(/\/postgres$/, `/${name}`);
  };
  return {
    url,
    port,
    get pid() {
      return child.pid!;
    },
    dataDir,
    halt,
    resume: launch,
    database,
    sql,
    async stop() {
      await halt();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A throwaway PostgreSQL for the test file: started before its tests, stopped after them. */
export function usePostgres(): { readonly postgres: TestPostgres } {
  let postgres: TestPostgres | undefined;
  beforeAll(async () => {
    postgres = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await postgres?.stop();
  });
  return {
    get postgres() {
      if (!postgres) throw new Error('PostgreSQL is not started yet: read it inside a test');
      return postgres;
    },
  };
}

/** Throwaway Redis and PostgreSQL for the test file: started before its tests, stopped after them. */
export function useRedisAndPostgres(): { readonly redis: TestRedis; readonly postgres: TestPostgres } {
  let redis: TestRedis | undefined;
  let postgres: TestPostgres | undefined;
  beforeAll(async () => {
    [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([redis?.stop(), postgres?.stop()]);
  });
  return {
    get redis() {
      if (!redis) throw new Error('Redis is not started yet: read it inside a test');
      return redis;
    },
    get postgres() {
      if (!postgres) throw new Error('PostgreSQL is not started yet: read it inside a test');
      return postgres;
    },
  };
}
