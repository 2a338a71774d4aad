/**
 * Two attacks on the relay with one token (issue 29, items 1 and 14), each against main's
 * relay (`--base`, default `main`: its packages/relay/src extracted next to this one) and
 * this checkout's, taking turns run by run, base first:
 *
 *   npx tsx test/bench/relay-attacks.ts [--runs 2] [--seconds 15] [--records 100000] [--base main]
 *
 * - `reload`: four rooms of `--records` small records each, stored compacted; a read-only
 *   token's 4 sockets each connect (sending nothing), drop after 100 ms and
 *   connect again, for `--seconds`. A well-behaved pair of y-websocket clients in another
 *   room times round trips (a write every 50 ms, until the other sees it; 3 s cap), 5 s
 *   alone and then during the attack. Also: the relay's CPU (user + system, /proc) during
 *   the attack as a share of one core, and what the attacker was refused (HTTP 429, close 4529).
 * - `awareness`: one read-only socket publishes 50 new awareness client ids per message, 150
 *   messages a second (under the per-socket rate limit), reconnecting when closed, for
 *   `--seconds`. Then: the relay's resident memory growth (VmRSS), the awareness a client
 *   joining then is sent, the relay's CPU share, how the attacker was closed.
 *
 * Relay and attacker each run in their own process (packages/relay/test/flood-client.ts).
 * Prints Markdown tables and the load average; timing is never a pass/fail test.
 */
import { type ChildProcess, execFileSync, fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { issueToken } from '../../packages/relay/src/index.ts';
import { SqliteStore } from '../../packages/relay/src/storage/sqlite-store.ts';
import { summarize } from './stats.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '2' }, seconds: { type: 'string', default: '15' }, records: { type: 'string', default: '100000' }, base: { type: 'string', default: 'main' } } });
const RUNS = Number(values.runs);
const ATTACK_MS = Number(values.seconds) * 1000;
const RECORDS = Number(values.records);
const here = dirname(fileURLToPath(import.meta.url));
const relayPackage = join(here, '..', '..', 'packages', 'relay');
const FLOOD_CLIENT = join(relayPackage, 'test', 'flood-client.ts');
const SECRET = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
const VICTIM_ROOM = 'u=alice;s=shared';
const BIG_ROOMS = [0, 1, 2, 3].map((i) => `u=bob;s=big${i}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message: string) => process.stderr.write(`${message}\n`);

interface FloodReport {
  opened: number;
  refused: Record<string, number>;
  closed: Record<string, number>;
  sent: number;
}

/** Main's relay source, extracted inside packages/relay so it resolves the same dependencies. */
function extractBase(): string {
  const dir = mkdtempSync(join(relayPackage, '.bench-base-'));
  const archive = execFileSync('git', ['archive', values.base!, 'packages/relay/src'], { cwd: join(relayPackage, '..', '..'), maxBuffer: 64 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  return join(dir, 'packages', 'relay', 'src');
}

interface RelayChild {
  child: ChildProcess;
  url: string;
  port: number;
}

async function startRelay(src: string, dataDir: string): Promise<RelayChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(src, 'bin.ts'), '--port', '0', '--data-dir', dataDir, '--quiet'], {
    env: { ...process.env, ZEROMEM_RELAY_SECRET: SECRET },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const match = /^(ws:\/\/\S+:(\d+))\n/.exec(out);
    if (match) return { child, url: match[1]!, port: Number(match[2]) };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error('relay did not start');
    await sleep(25);
  }
}

async function stopRelay(relay: RelayChild): Promise<void> {
  relay.child.kill('SIGKILL');
  if (relay.child.exitCode === null && relay.child.signalCode === null) await new Promise((resolve) => relay.child.once('exit', resolve));
}

/** CPU seconds (user + system) the process used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

const token = (rooms: string[], subject: string, access: 'read' | 'read-write') => issueToken({ secret: SECRET, subject, rooms, access, ttlSeconds: 3600 });

async function attacker(url: string, rooms: string[], sockets: number, perSecond: number, kind: string): Promise<{ child: ChildProcess; last(): FloodReport | undefined }> {
  const child = fork(FLOOD_CLIENT, [url, JSON.stringify(rooms), await token(rooms, 'mallory', 'read'), String(sockets), String(perSecond), kind], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  let last: FloodReport | undefined;
  child.on('message', (message) => {
    if (typeof message === 'object') last = message as FloodReport;
  });
  await new Promise((resolve) => child.once('message', resolve));
  return { child, last: () => last };
}

function provider(url: string, room: string, authToken: string): { doc: Y.Doc; provider: WebsocketProvider } {
  const doc = new Y.Doc();
  return { doc, provider: new WebsocketProvider(url, encodeURIComponent(room), doc, { WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket, params: { token: authToken }, disableBc: true }) };
}

const synced = (p: WebsocketProvider) => new Promise<void>((resolve) => (p.synced ? resolve() : p.once('sync', () => resolve())));

async function reloadRun(src: string, seeded: string): Promise<Record<string, number>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'relay-attack-'));
  execFileSync('cp', ['-r', `${seeded}/.`, dataDir]);
  const relay = await startRelay(src, dataDir);
  const rw = await token([VICTIM_ROOM], 'alice', 'read-write');
  const writer = provider(relay.url, VICTIM_ROOM, rw);
  const reader = provider(relay.url, VICTIM_ROOM, rw);
  await Promise.all([synced(writer.provider), synced(reader.provider)]);
  const phase = { samples: [] as number[], done: false };
  const trips = (async () => {
    for (let i = 0; !phase.done; i++) {
      const samples = phase.samples;
      const start = performance.now();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 3000);
        const observe = (): void => {
          if (!reader.doc.getMap('m').has(`k${i}`)) return;
          clearTimeout(timer);
          reader.doc.getMap('m').unobserve(observe);
          resolve();
        };
        reader.doc.getMap('m').observe(observe);
        writer.doc.getMap('m').set(`k${i}`, i);
      });
      samples.push(performance.now() - start);
      await sleep(50);
    }
  })();
  await sleep(5000);
  const alone = phase.samples;
  phase.samples = [];
  const cpuBefore = cpuSeconds(relay.child.pid!);
  const started = performance.now();
  const attack = await attacker(relay.url, BIG_ROOMS, 4, 10, 'reload');
  await sleep(ATTACK_MS);
  const cpu = (cpuSeconds(relay.child.pid!) - cpuBefore) / ((performance.now() - started) / 1000);
  const report = attack.last();
  attack.child.kill('SIGKILL');
  const attacked = phase.samples;
  phase.done = true;
  await trips;
  writer.provider.destroy();
  reader.provider.destroy();
  await stopRelay(relay);
  rmSync(dataDir, { recursive: true, force: true });
  const a = summarize(alone);
  const b = summarize(attacked);
  return {
    aloneP50: a.p50,
    aloneP95: a.p95,
    attackedP50: b.p50,
    attackedP95: b.p95,
    roundTrips: b.n,
    relayCpuShare: cpu,
    connectsServed: report?.opened ?? 0,
    refused429: report?.refused['429'] ?? 0,
    closed4529: report?.closed['4529'] ?? 0,
  };
}

async function awarenessRun(src: string): Promise<Record<string, number>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'relay-attack-'));
  const relay = await startRelay(src, dataDir);
  const rw = await token([VICTIM_ROOM], 'alice', 'read-write');
  const a = provider(relay.url, VICTIM_ROOM, rw);
  await synced(a.provider);
  await sleep(500);
  const rssBefore = rssMb(relay.child.pid!);
  const cpuBefore = cpuSeconds(relay.child.pid!);
  const started = performance.now();
  const attack = await attacker(relay.url, [VICTIM_ROOM], 1, 150, 'awareness');
  await sleep(ATTACK_MS);
  const cpu = (cpuSeconds(relay.child.pid!) - cpuBefore) / ((performance.now() - started) / 1000);
  const rssAfter = rssMb(relay.child.pid!);
  // A client joining now: the first message a read-only socket is sent is the room's awareness.
  const joiner = new WebSocket(`${relay.url}/${encodeURIComponent(VICTIM_ROOM)}?token=${await token([VICTIM_ROOM], 'joiner', 'read')}`);
  const joinerBytes = await new Promise<number>((resolve) => {
    joiner.once('message', (data: Buffer) => resolve(data.byteLength));
    setTimeout(() => resolve(0), 10_000);
  });
  joiner.terminate();
  const report = attack.last();
  attack.child.kill('SIGKILL');
  a.provider.destroy();
  await stopRelay(relay);
  rmSync(dataDir, { recursive: true, force: true });
  return {
    clientIdsSent: (report?.sent ?? 0) * 50,
    rssGrowthMb: rssAfter - rssBefore,
    joinerAwarenessKb: joinerBytes / 1024,
    relayCpuShare: cpu,
    closed4413: report?.closed['4413'] ?? 0,
  };
}

function bigDocument(records: number): Uint8Array {
  const doc = new Y.Doc();
  doc.transact(() => {
    for (let i = 0; i < records; i++) doc.getMap('records').set(`r${i}`, { content: `memory number ${i}`, importance: i % 10 });
  });
  return Y.encodeStateAsUpdate(doc);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const fmt = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2));

function table(title: string, runs: Record<'base' | 'branch', Array<Record<string, number>>>): string {
  const keys = Object.keys(runs.branch[0] ?? runs.base[0] ?? {});
  const lines = [`| ${title} | base (runs) | this branch (runs) |`, '|---|---|---|'];
  for (const key of keys) {
    const cell = (side: 'base' | 'branch') => `${fmt(median(runs[side].map((r) => r[key]!)))} (${runs[side].map((r) => fmt(r[key]!)).join(', ')})`;
    lines.push(`| ${key} | ${cell('base')} | ${cell('branch')} |`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const baseSrc = extractBase();
  const branchSrc = join(relayPackage, 'src');
  const seeded = mkdtempSync(join(tmpdir(), 'relay-attack-seed-'));
  try {
    log(`seeding 4 rooms of ${RECORDS} records`);
    const store = new SqliteStore(seeded);
    for (const room of BIG_ROOMS) await store.append([{ room, updates: [bigDocument(RECORDS)] }]);
    await store.close();
    const reload = { base: [] as Array<Record<string, number>>, branch: [] as Array<Record<string, number>> };
    const awareness = { base: [] as Array<Record<string, number>>, branch: [] as Array<Record<string, number>> };
    const loads: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      for (const [side, src] of [['base', baseSrc], ['branch', branchSrc]] as const) {
        loads.push(loadavg()[0]!);
        log(`run ${run + 1} ${side}: reload`);
        reload[side].push(await reloadRun(src, seeded));
        log(JSON.stringify(reload[side].at(-1)));
        log(`run ${run + 1} ${side}: awareness`);
        awareness[side].push(await awarenessRun(src));
        log(JSON.stringify(awareness[side].at(-1)));
      }
    }
    console.log(`load average (1 min) at each run's start: ${loads.map((l) => l.toFixed(1)).join(', ')}\n`);
    console.log(table(`reload attack (4 rooms x ${RECORDS} records, ${values.seconds} s), medians`, reload));
    console.log();
    console.log(table(`awareness flood (${values.seconds} s), medians`, awareness));
  } finally {
    rmSync(seeded, { recursive: true, force: true });
    rmSync(dirname(dirname(dirname(baseSrc))), { recursive: true, force: true });
  }
}

await main();
process.exit(0);
