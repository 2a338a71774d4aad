/**
 * Relay load benchmark (issue 15, item 4): many websocket clients over many rooms writing at
 * a steady rate, against
 * - `cluster`: two `zeromem-relay --redis-url ... --postgres-url ...` instances,
 * - `single`: one `zeromem-relay` on its SQLite file (every client on it),
 * - `hocuspocus`: two Hocuspocus 3.4.4 instances with `@hocuspocus/extension-redis` on the
 *   same Redis and `@hocuspocus/extension-database` on the same PostgreSQL
 *   (test/bench/hocuspocus-host.ts), clients on `@hocuspocus/provider`,
 * one after the other in each run (the order rotates), with the same clients and writes.
 *
 *   npx tsx --conditions=development test/bench/relay-load.ts [--runs 3] [--clients 2000]
 *     [--rooms 500] [--rate 200] [--seconds 60] [--systems cluster,single,hocuspocus] ...
 *   (--help lists every flag; a smoke run: --runs 1 --clients 40 --rooms 10 --seconds 5)
 *
 * Everything runs on loopback and is started by this script: Redis and PostgreSQL 15 on free
 * ports in temporary directories (test/bench/load-services.ts), the servers, and the clients
 * in `--client-processes` child processes (test/bench/load-clients.ts; all clients of a room
 * in one process, so one clock times each write to each receiver). Everything is stopped at
 * the end, on an error, on Ctrl-C and at `--max-minutes`.
 *
 * Per system and run: every room has clients/rooms clients, spread over the instances
 * (client k of a room on instance k mod instances). Clients connect (`--concurrency` at a
 * time per process) and sync; `--warmup` seconds of writes; `--idle` seconds without writes
 * (what connected clients cost alone); then `--seconds` of writes at `--rate` writes/s in
 * all, open loop: a random client of a random room sets one ~250-byte map entry. Measured:
 * - write-to-visible (the write call to the receiver's map observer) for receivers on the
 *   writer's instance and on another one;
 * - errors: clients that did not connect, sockets closed during the run, receivers that had
 *   not seen a write 10 s after the writes ended;
 * - CPU (% of one core, over the write window) and RSS of each server instance, Redis,
 *   PostgreSQL (postmaster and backends) and each client process, from /proc;
 * - Redis commands per write (INFO commandstats deltas), PostgreSQL statements, commits,
 *   rows written and WAL bytes per write (pg_stat_statements, pg_stat_database, the WAL
 *   position), and storage per room after the servers stopped.
 *
 * Prints a Markdown table (medians over runs, min-max beside) and writes JSON to
 * test/bench/results/relay-load.json (the latest result, earlier ones under `history`).
 * Timing is never a pass/fail test. Linux only (/proc).
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { ClientCommand, ClientKind, ClientReply, RoomPlan, WriteResult } from './load-clients.ts';
import { ProcSampler } from './load-proc.ts';
import { type PgCounters, type PostgresService, type RedisService, freePort, startPostgres, startRedis } from './load-services.ts';
import { type Latency, median, summarize } from './stats.ts';
import { writeWithHistory } from './results-history.ts';

const here = dirname(fileURLToPath(import.meta.url));
const RELAY_BIN = join(here, '../../packages/relay/src/bin.ts');
const SECRET = 'load-bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
const SYSTEMS = ['cluster', 'single', 'hocuspocus'] as const;
type System = (typeof SYSTEMS)[number];
const DRAIN_MS = 10_000;
const log = (message: string) => process.stderr.write(`[relay-load ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

const USAGE = `Usage: npx tsx --conditions=development test/bench/relay-load.ts [options]

  --runs <n>              runs; every system once per run, order rotating (default 3)
  --clients <n>           websocket clients per system (default 2000)
  --rooms <n>             rooms; clients/rooms clients each, at least 2 (default 500)
  --rate <n>              writes per second in all (default 200)
  --seconds <n>           measured write window (default 60)
  --warmup <n>            seconds of writes before measuring (default 5)
  --idle <n>              seconds with clients connected and no writes (default 12)
  --systems <list>        comma-separated: ${SYSTEMS.join(', ')} (default all)
  --client-processes <n>  child processes holding the clients (default 2)
  --concurrency <n>       clients connecting at once per process (default 50)
  --max-minutes <n>       stop everything after this long (default 45)
  --out <file>            JSON output (default test/bench/results/relay-load.json)
  -h, --help              this help
`;

const whole = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const Flags = z
  .object({
    runs: whole(1, 9),
    clients: whole(2, 10_000),
    rooms: whole(1, 5_000),
    rate: whole(1, 5_000),
    seconds: whole(1, 600),
    warmup: whole(0, 120),
    idle: whole(0, 120),
    systems: z
      .string()
      .transform((s) => s.split(',').map((x) => x.trim()))
      .pipe(z.array(z.enum(SYSTEMS)).min(1)),
    'client-processes': whole(1, 16),
    concurrency: whole(1, 1_000),
    'max-minutes': whole(1, 180),
    out: z.string().min(1),
  })
  .refine((f) => f.clients % f.rooms === 0 && f.clients / f.rooms >= 2, { message: '--clients must be a multiple of --rooms, at least 2 clients per room' })
  .refine((f) => f['client-processes'] <= f.rooms, { message: '--client-processes must not exceed --rooms' });

function parseFlags() {
  const { values } = parseArgs({
    strict: true,
    options: {
      runs: { type: 'string', default: '3' },
      clients: { type: 'string', default: '2000' },
      rooms: { type: 'string', default: '500' },
      rate: { type: 'string', default: '200' },
      seconds: { type: 'string', default: '60' },
      warmup: { type: 'string', default: '5' },
      idle: { type: 'string', default: '12' },
      systems: { type: 'string', default: SYSTEMS.join(',') },
      'client-processes': { type: 'string', default: '2' },
      concurrency: { type: 'string', default: '50' },
      'max-minutes': { type: 'string', default: '45' },
      out: { type: 'string', default: join(here, 'results', 'relay-load.json') },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const parsed = Flags.safeParse(values);
  if (!parsed.success) {
    process.stderr.write(`relay-load: ${parsed.error.issues.map((i) => `${i.path.length ? `--${i.path.join('.')}: ` : ''}${i.message}`).join('; ')}\n\n${USAGE}`);
    process.exit(2);
  }
  return parsed.data;
}

let flags: ReturnType<typeof parseFlags>;
try {
  flags = parseFlags();
} catch (err) {
  process.stderr.write(`relay-load: ${(err as Error).message}\n\n${USAGE}`);
  process.exit(2);
}

// ---------------------------------------------------------------------------------------
// Everything started is registered here and stopped at the end, on error and on Ctrl-C.

const running = new Set<() => Promise<void>>();
/** Registers a stopper; the returned function runs it once and unregisters it. */
function own(stop: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  const once = () => {
    running.delete(once);
    return (done ??= stop());
  };
  running.add(once);
  return once;
}
async function stopAll(): Promise<void> {
  for (const stop of [...running].reverse()) await stop().catch((err: Error) => log(`stopping: ${err.message}`));
}
let stopping = false;
async function abort(reason: string, code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    log(`${reason}: stopping everything`);
    await stopAll();
  }
  process.exit(code);
}
process.once('SIGINT', () => void abort('interrupted', 130));
process.once('SIGTERM', () => void abort('terminated', 143));
setTimeout(() => void abort(`--max-minutes ${flags['max-minutes']} reached`, 1), flags['max-minutes'] * 60_000).unref();

// ---------------------------------------------------------------------------------------
// Servers

interface Instance {
  url: string;
  pid: number;
  /** What it wrote to stderr (the relay logs errors there as JSON lines). */
  stderr(): string;
  stop(): Promise<void>;
}

/** Spawns a server that prints its ws:// URL as its first stdout line. */
async function spawnServer(name: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=development', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const stop = own(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(killer);
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const url = /^(ws:\/\/\S+)\n/.exec(stdout);
    if (url) return { url: url[1]!, pid: child.pid!, stderr: () => stderr, stop };
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`${name} did not start: ${stderr.slice(-4000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const relayArgs = (dataDir: string) => [RELAY_BIN, '--port', '0', '--data-dir', dataDir, '--log-level', 'error'];

async function startSystem(system: System, redis: RedisService, postgres: PostgresService, database: string, dataDir: string): Promise<Instance[]> {
  const env = { ZEROMEM_RELAY_SECRET: SECRET };
  if (system === 'single') return [await spawnServer('zeromem-relay', relayArgs(join(dataDir, 'single')), env)];
  const instances: Instance[] = [];
  for (let i = 0; i < 2; i++) {
    if (system === 'cluster') {
      const args = [...relayArgs(join(dataDir, `instance-${i}`)), '--redis-url', redis.url, '--postgres-url', postgres.url(database)];
      instances.push(await spawnServer(`zeromem-relay instance ${i}`, args, env));
    } else {
      const args = [join(here, 'hocuspocus-host.ts'), String(await freePort()), redis.url, postgres.url(database), SECRET];
      instances.push(await spawnServer(`hocuspocus instance ${i}`, args));
    }
  }
  return instances;
}

// ---------------------------------------------------------------------------------------
// Client processes

interface ClientProcess {
  pid: number;
  rooms: number;
  ask<T extends ClientReply['type']>(command: ClientCommand, answer: T): Promise<Extract<ClientReply, { type: T }>>;
  stop(): Promise<void>;
}

function startClientProcess(rooms: number): ClientProcess {
  const child: ChildProcess = fork(join(here, 'load-clients.ts'), [], { execArgv: ['--import', 'tsx', '--conditions=development'], stdio: 'inherit' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ask: ClientProcess['ask'] = (command, answer) =>
    new Promise((resolve, reject) => {
      const onMessage = (reply: ClientReply) => {
        if (reply.type !== answer) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(reply as never);
      };
      const onExit = () => reject(new Error(`client process ${child.pid} exited`));
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send(command);
    });
  const stop = own(async () => {
    if (child.exitCode === null) {
      await ask({ type: 'close' }, 'closed').catch(() => undefined);
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    }
  });
  return { pid: child.pid!, rooms, ask, stop };
}

// ---------------------------------------------------------------------------------------
// One system in one run

interface ProcFigures {
  cpuPercent: number;
  rssMB: number;
  peakRssMB: number;
}

interface SystemResult {
  system: System;
  run: number;
  loadAverage: { before: number; after: number };
  clients: { planned: number; connected: number; failed: number; connectSeconds: number };
  writes: number;
  writesPerSecond: number;
  sameInstance?: Latency;
  otherInstance?: Latency;
  errors: {
    total: number;
    connectFailed: number;
    socketsClosed: number;
    missingDeliveries: number;
    /** Of the missing deliveries: to a receiver on another instance than the writer; to a receiver holding updates it could not apply. */
    missingOtherInstance: number;
    missingBehindGap: number;
    closeCodes: Record<string, number>;
  };
  instances: Array<ProcFigures & { idleCpuPercent: number; idleRssMB: number }>;
  /** CPU time per write over the window: the server instances' (less what they used with the clients idle), Redis', PostgreSQL's. */
  cpuMsPerWrite: { servers: number; redis?: number; postgres?: number };
  /** CPU the instances use for connected, idle clients (awareness renewals, pings), per 1,000 clients. */
  idleCpuPercentPer1000Clients: number;
  clientProcesses: ProcFigures[];
  /** The worst client process's event-loop delay p99 during the window (ms). */
  clientEventLoopDelayP99: number;
  redis: (ProcFigures & { commandsPerWrite: number; byCommandPerWrite: Record<string, number>; idleCommandsPerSecond: number }) | undefined;
  postgres: (ProcFigures & { statementsPerWrite: number; commitsPerWrite: number; rowsWrittenPerWrite: number; walBytesPerWrite: number }) | undefined;
  storage: { bytes: number; bytesPerRoom: number };
  /** Lines the servers wrote to stderr (errors, at --log-level error), counted by message. */
  serverErrors: Record<string, number>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

function diffCalls(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [command, calls] of Object.entries(b)) if (calls - (a[command] ?? 0) > 0) out[command] = calls - (a[command] ?? 0);
  return out;
}

function dirBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(path) : statSync(path).size;
  }
  return total;
}

/** Runs one write phase in every client process at its share of the rate. */
async function writePhase(procs: ClientProcess[], seconds: number, seed: number): Promise<WriteResult> {
  const results = await Promise.all(
    procs.map((p, i) =>
      p.ask({ type: 'write', ratePerSecond: (flags.rate * p.rooms) / flags.rooms, durationMs: seconds * 1000, drainMs: DRAIN_MS, seed: seed * 31 + i }, 'written'),
    ),
  );
  const closeCodes: Record<string, number> = {};
  for (const r of results) for (const [code, n] of Object.entries(r.closeCodes)) closeCodes[code] = (closeCodes[code] ?? 0) + n;
  return {
    writes: results.reduce((n, r) => n + r.writes, 0),
    sameInstance: results.flatMap((r) => r.sameInstance),
    otherInstance: results.flatMap((r) => r.otherInstance),
    missing: results.reduce((n, r) => n + r.missing, 0),
    missingOtherInstance: results.reduce((n, r) => n + r.missingOtherInstance, 0),
    missingBehindGap: results.reduce((n, r) => n + r.missingBehindGap, 0),
    closeCodes,
    eventLoopDelayP99: Math.max(...results.map((r) => r.eventLoopDelayP99)),
  };
}

async function measureSystem(system: System, run: number, redis: RedisService, postgres: PostgresService): Promise<SystemResult> {
  const loadBefore = loadavg()[0]!;
  const database = `load_${system}_${run}`;
  const usesPostgres = system !== 'single';
  const dataDir = mkdtempSync(join(tmpdir(), 'zeromem-load-'));
  const removeDir = own(async () => rmSync(dataDir, { recursive: true, force: true }));
  await redis.flush();
  let emptyDatabaseBytes = 0;
  if (usesPostgres) {
    await postgres.createDatabase(database);
    emptyDatabaseBytes = (await postgres.counters(database)).databaseBytes;
  }
  const dropDatabase = own(async () => (usesPostgres ? postgres.dropDatabase(database) : undefined));
  log(`run ${run} ${system}: starting servers`);
  const instances = await startSystem(system, redis, postgres, database, dataDir);
  const stopInstances = () => Promise.all(instances.map((i) => i.stop()));
  try {
    const perRoom = flags.clients / flags.rooms;
    const plans: RoomPlan[][] = Array.from({ length: flags['client-processes'] }, () => []);
    for (let r = 0; r < flags.rooms; r++) {
      const room = `u=load-${r};s=notes`;
      const clients = Array.from({ length: perRoom }, (_, k) => ({ url: instances[k % instances.length]!.url, instance: k % instances.length, subject: `load-${r}-${k}` }));
      plans[r % plans.length]!.push({ room, clients });
    }
    const procs = plans.map((p) => startClientProcess(p.length));
    const kind: ClientKind = system === 'hocuspocus' ? 'hocuspocus' : 'y-websocket';
    const opened = await Promise.all(
      procs.map((p, i) => p.ask({ type: 'open', kind, secret: SECRET, rooms: plans[i]!, concurrency: flags.concurrency, timeoutMs: 30_000 }, 'opened')),
    );
    const connected = opened.reduce((n, o) => n + o.connected, 0);
    const failed = opened.reduce((n, o) => n + o.failed, 0);
    log(`run ${run} ${system}: ${connected} clients connected (${failed} failed) in ${Math.max(...opened.map((o) => o.ms))} ms`);

    const seed = run * 1000 + SYSTEMS.indexOf(system);
    if (flags.warmup > 0) await writePhase(procs, flags.warmup, seed);

    // Connected, no writes: what the clients cost alone (awareness renewals, pings, leases).
    const instanceTargets = instances.map((inst, i) => ({ name: `instance-${i}`, pid: inst.pid }));
    const idleSampler = new ProcSampler(instanceTargets);
    const idleCallsBefore = await redis.commandCalls();
    idleSampler.start();
    await sleep(flags.idle * 1000);
    const idle = idleSampler.stop();
    const idleCalls = diffCalls(idleCallsBefore, await redis.commandCalls());
    const idleCommands = Object.values(idleCalls).reduce((a, b) => a + b, 0);

    log(`run ${run} ${system}: writing ${flags.rate}/s for ${flags.seconds} s`);
    const sampler = new ProcSampler([
      ...instanceTargets,
      { name: 'redis', pid: redis.pid },
      { name: 'postgres', pid: postgres.pid, tree: true },
      ...procs.map((p, i) => ({ name: `clients-${i}`, pid: p.pid })),
    ]);
    const callsBefore = await redis.commandCalls();
    const pgBefore: PgCounters | undefined = usesPostgres ? await postgres.counters(database) : undefined;
    sampler.start();
    let window: ReturnType<ProcSampler['stop']> | undefined;
    const windowEnd = setTimeout(() => (window = sampler.stop()), flags.seconds * 1000);
    const written = await writePhase(procs, flags.seconds, seed + 500);
    clearTimeout(windowEnd);
    window ??= sampler.stop();
    // Debounced stores (Hocuspocus) and PostgreSQL's statistics (flushed within a second) settle.
    await sleep(3000);
    const calls = diffCalls(callsBefore, await redis.commandCalls());
    const pgAfter = usesPostgres ? await postgres.counters(database) : undefined;
    await Promise.all(procs.map((p) => p.stop()));
    await stopInstances();
    const storageBytes = usesPostgres ? (await postgres.counters(database)).databaseBytes - emptyDatabaseBytes : dirBytes(dataDir);
    const serverErrors: Record<string, number> = {};
    // A JSON log line is one entry; of other output (Hocuspocus prints errors with their stack),
    // only lines that start an entry: not indented, not a closing brace.
    for (const line of instances.flatMap((i) => i.stderr().split('\n')).filter((l) => /^[^\s}]/.test(l))) {
      let message = line.slice(0, 200);
      try {
        const entry = JSON.parse(line) as { msg?: string; message?: string; error?: string };
        message = `${entry.msg ?? entry.message ?? ''}${entry.error ? `: ${entry.error.slice(0, 160)}` : ''}`;
      } catch {
        // not a JSON log line: keep its start
      }
      serverErrors[message] = (serverErrors[message] ?? 0) + 1;
    }
    const writes = written.writes;
    const perWrite = (n: number) => (writes > 0 ? round(n / writes, 3) : 0);
    const commands = Object.values(calls).reduce((a, b) => a + b, 0);
    const socketsClosed = Object.values(written.closeCodes).reduce((a, b) => a + b, 0);
    const usesRedis = system !== 'single';
    const result: SystemResult = {
      system,
      run,
      loadAverage: { before: round(loadBefore), after: round(loadavg()[0]!) },
      clients: { planned: flags.clients, connected, failed, connectSeconds: round(Math.max(...opened.map((o) => o.ms)) / 1000, 1) },
      writes,
      writesPerSecond: round(writes / flags.seconds, 1),
      ...(written.sameInstance.length ? { sameInstance: summarize(written.sameInstance) } : {}),
      ...(written.otherInstance.length ? { otherInstance: summarize(written.otherInstance) } : {}),
      errors: { total: failed + socketsClosed + written.missing, connectFailed: failed, socketsClosed, missingDeliveries: written.missing,
        missingOtherInstance: written.missingOtherInstance,
        missingBehindGap: written.missingBehindGap,
        closeCodes: written.closeCodes,
      },
      instances: instanceTargets.map((t) => ({ ...window![t.name]!, idleCpuPercent: idle[t.name]!.cpuPercent, idleRssMB: idle[t.name]!.rssMB })),
      cpuMsPerWrite: {
        servers: perWrite(instanceTargets.reduce((ms, t) => ms + (window![t.name]!.cpuPercent - idle[t.name]!.cpuPercent) * 10 * flags.seconds, 0)),
        ...(usesRedis ? { redis: perWrite(window.redis!.cpuPercent * 10 * flags.seconds) } : {}),
        ...(usesPostgres ? { postgres: perWrite(window.postgres!.cpuPercent * 10 * flags.seconds) } : {}),
      },
      idleCpuPercentPer1000Clients: connected > 0 ? round((instanceTargets.reduce((n, t) => n + idle[t.name]!.cpuPercent, 0) * 1000) / connected, 1) : 0,
      clientProcesses: procs.map((_, i) => window![`clients-${i}`]!),
      clientEventLoopDelayP99: written.eventLoopDelayP99,
      redis: usesRedis
        ? {
            ...window.redis!,
            commandsPerWrite: perWrite(commands),
            byCommandPerWrite: Object.fromEntries(Object.entries(calls).map(([c, n]) => [c, perWrite(n)])),
            idleCommandsPerSecond: flags.idle > 0 ? round(idleCommands / flags.idle, 1) : 0,
          }
        : undefined,
      postgres:
        pgBefore && pgAfter
          ? {
              ...window.postgres!,
              statementsPerWrite: perWrite(pgAfter.statements - pgBefore.statements),
              commitsPerWrite: perWrite(pgAfter.commits - pgBefore.commits),
              rowsWrittenPerWrite: perWrite(pgAfter.rowsInserted + pgAfter.rowsUpdated + pgAfter.rowsDeleted - pgBefore.rowsInserted - pgBefore.rowsUpdated - pgBefore.rowsDeleted),
              walBytesPerWrite: Math.round(perWrite(pgAfter.walBytes - pgBefore.walBytes)),
            }
          : undefined,
      storage: { bytes: storageBytes, bytesPerRoom: Math.round(storageBytes / flags.rooms) },
      serverErrors,
    };
    log(`run ${run} ${system}: ${writes} writes, errors ${result.errors.total}, same p50 ${result.sameInstance?.p50 ?? '-'} ms, other p50 ${result.otherInstance?.p50 ?? '-'} ms`);
    return result;
  } finally {
    await stopInstances();
    await dropDatabase();
    await removeDir();
  }
}

// ---------------------------------------------------------------------------------------
// Table

type Get = (r: SystemResult) => number | string | undefined;

function cell(results: SystemResult[], get: Get): string {
  const values = results.map(get).filter((v) => v !== undefined);
  if (values.length === 0) return 'n/a';
  if (values.some((v) => typeof v === 'string')) return values.join('; ');
  const nums = values as number[];
  const mid = median(nums);
  return nums.length > 1 ? `${mid} (${Math.min(...nums)}-${Math.max(...nums)})` : String(mid);
}

function table(all: SystemResult[]): string {
  const systems = flags.systems.filter((s) => all.some((r) => r.system === s));
  const names: Record<System, string> = {
    cluster: 'zeromem cluster (2 instances, Redis + PostgreSQL)',
    single: 'zeromem single (1 process, SQLite)',
    hocuspocus: 'Hocuspocus 3.4.4 (2 instances, Redis + PostgreSQL)',
  };
  const each = (i: number, get: (p: ProcFigures & { idleCpuPercent: number; idleRssMB: number }) => number): Get => (r) => {
    const inst = r.instances[i];
    return inst ? get(inst) : undefined;
  };
  const rows: Array<[string, Get]> = [
    ['clients connected (of planned)', (r) => r.clients.connected],
    ['connect + sync time, all clients (s)', (r) => r.clients.connectSeconds],
    ['writes/s achieved', (r) => r.writesPerSecond],
    ['write-to-visible p50, same instance (ms)', (r) => r.sameInstance?.p50],
    ['write-to-visible p99, same instance (ms)', (r) => r.sameInstance?.p99],
    ['write-to-visible p50, other instance (ms)', (r) => r.otherInstance?.p50],
    ['write-to-visible p99, other instance (ms)', (r) => r.otherInstance?.p99],
    ['errors (connect failures + sockets closed + missing deliveries)', (r) => r.errors.total],
    ['  of which missing deliveries (other instance / behind a gap)', (r) => `${r.errors.missingDeliveries} (${r.errors.missingOtherInstance} / ${r.errors.missingBehindGap})`],
    ['error lines the servers logged', (r) => Object.values(r.serverErrors).reduce((a, b) => a + b, 0)],
    ['instance 0 CPU under load (% of a core)', each(0, (p) => p.cpuPercent)],
    ['instance 1 CPU under load (% of a core)', each(1, (p) => p.cpuPercent)],
    ['instance 0 CPU, clients idle (%)', each(0, (p) => p.idleCpuPercent)],
    ['server CPU per write, all instances, less idle (ms)', (r) => r.cpuMsPerWrite.servers],
    ['server CPU with clients idle, per 1,000 clients (% of a core)', (r) => r.idleCpuPercentPer1000Clients],
    ['instance 0 RSS idle / peak (MB)', (r) => (r.instances[0] ? `${r.instances[0].idleRssMB} / ${r.instances[0].peakRssMB}` : undefined)],
    ['instance 1 RSS idle / peak (MB)', (r) => (r.instances[1] ? `${r.instances[1].idleRssMB} / ${r.instances[1].peakRssMB}` : undefined)],
    ['Redis commands per write', (r) => r.redis?.commandsPerWrite],
    ['Redis commands/s, clients idle', (r) => r.redis?.idleCommandsPerSecond],
    ['Redis CPU (%)', (r) => r.redis?.cpuPercent],
    ['Redis CPU per write (ms)', (r) => r.cpuMsPerWrite.redis],
    ['PostgreSQL statements per write', (r) => r.postgres?.statementsPerWrite],
    ['PostgreSQL commits per write', (r) => r.postgres?.commitsPerWrite],
    ['PostgreSQL rows written per write', (r) => r.postgres?.rowsWrittenPerWrite],
    ['PostgreSQL WAL bytes per write', (r) => r.postgres?.walBytesPerWrite],
    ['PostgreSQL CPU (%)', (r) => r.postgres?.cpuPercent],
    ['PostgreSQL CPU per write (ms)', (r) => r.cpuMsPerWrite.postgres],
    ['storage per room after the run (KB)', (r) => round(r.storage.bytesPerRoom / 1024, 1)],
    ['client processes CPU (% each)', (r) => r.clientProcesses.map((p) => p.cpuPercent).join(' + ')],
    ['client event-loop delay p99, worst process (ms)', (r) => r.clientEventLoopDelayP99],
    ['load average (1 min) before', (r) => r.loadAverage.before],
  ];
  const header = `| Measurement | ${systems.map((s) => names[s]).join(' | ')} |`;
  const rule = `|---|${systems.map(() => '---|').join('')}`;
  const body = rows.map(([label, get]) => `| ${label} | ${systems.map((s) => cell(all.filter((r) => r.system === s), get)).join(' | ')} |`);
  return [header, rule, ...body].join('\n');
}

// ---------------------------------------------------------------------------------------

const results: SystemResult[] = [];
const startedAt = new Date().toISOString();
try {
  log(`starting Redis and PostgreSQL; ${flags.clients} clients, ${flags.rooms} rooms, ${flags.rate} writes/s, ${flags.seconds} s, ${flags.runs} run(s): ${flags.systems.join(', ')}`);
  const redis = await startRedis();
  own(() => redis.stop());
  const postgres = await startPostgres();
  own(() => postgres.stop());
  for (let run = 1; run <= flags.runs; run++) {
    const shift = (run - 1) % flags.systems.length;
    const order = [...flags.systems.slice(shift), ...flags.systems.slice(0, shift)];
    for (const system of order) results.push(await measureSystem(system, run, redis, postgres));
  }
} catch (err) {
  log(`failed: ${(err as Error).stack ?? String(err)}`);
  await stopAll();
  process.exit(1);
}
await stopAll();

console.log(table(results));
const outFile = flags.out;
const { out: _out, ...config } = flags;
const output = {
  benchmark: 'relay-load',
  at: startedAt,
  config,
  environment: { node: process.version, os: `${platform()} ${release()}`, cpus: cpus().length, cpuModel: cpus()[0]?.model, redis: 'redis-server 7 (no persistence)', postgres: 'PostgreSQL 15 (defaults, fsync on)' },
  results,
};
writeWithHistory(outFile, output);
log(`wrote ${outFile}`);
