/**
 * Durable storage in Node, side by side in one run: zeromem on disk (SQLite through the
 * Node entry), zeromem on in-memory fake-indexeddb (what Node had before), raw
 * better-sqlite3 writing the same rows, and, with --peers, mem0 OSS (SQLite vector store,
 * infer: false) and Mastra memory on libSQL with the same deterministic embedder.
 *
 *   npx tsx --conditions=development test/bench/node-storage.ts [--append]           # storage: results/node-storage.json
 *   npx tsx --conditions=development test/bench/node-storage.ts --peers [--append]   # peers: results/node-storage-peers.json
 *   npx tsx --conditions=development test/bench/node-storage.ts --writes [--append]  # ack and 10k import only: results/node-storage-writes.json
 *   ... node-storage.ts --parts open100k,fake100k   # only some parts: ack, import10k, open100k (the disk 100k import, open-to-first-recall, raw read, first write), fake100k, raw100k
 *
 * Each figure comes from a fresh process (node-storage-worker.ts): remember ack p50/p95
 * (1,000 sequential writes after 100 warm-up), bulk import of 10k and 100k records
 * (rememberMany, 10k per call), open-to-first-recall of a 100k store from disk (a new
 * process: openMemory until the first hybrid recall's result, every memory embedded at
 * 128 dimensions and the index snapshot stored, as after normal use; ROUNDS times), and
 * bytes on disk per record. Floors next to them: raw better-sqlite3 reading every row of
 * that 100k file, and raw insert + in-memory ack. The peers are installed by this script into a temporary
 * directory (PEERS_DIR, default <tmp>/zeromem-bench-peers) with npm, never into the
 * workspace. BENCH_PEER_N (default 10,000) memories each (BENCH_MASTRA_N for Mastra, whose
 * writes are slow). Single writes: 200 after the load, each library in a fresh process.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, ratio } from './stats.ts';

const here = dirname(fileURLToPath(import.meta.url));
const WORKER = join(here, 'node-storage-worker.ts');

const APPEND = process.argv.includes('--append');
const PEERS = process.argv.includes('--peers');
const WRITES = process.argv.includes('--writes');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PART_NAMES = ['ack', 'import10k', 'open100k', 'fake100k', 'raw100k'] as const;
const partsArg = process.argv.find((arg) => arg.startsWith('--parts'));
const PARTS = new Set<string>(WRITES ? ['ack', 'import10k'] : partsArg ? (partsArg.includes('=') ? partsArg.split('=')[1]! : process.argv[process.argv.indexOf(partsArg) + 1]!).split(',') : PART_NAMES);
for (const part of PARTS) if (!(PART_NAMES as readonly string[]).includes(part)) throw new Error(`unknown part ${part}; parts: ${PART_NAMES.join(', ')}`);
const PEER_N = Number(process.env.BENCH_PEER_N ?? 10_000);
const MASTRA_N = Number(process.env.BENCH_MASTRA_N ?? PEER_N);
const outFile = join(here, 'results', PEERS ? 'node-storage-peers.json' : WRITES ? 'node-storage-writes.json' : 'node-storage.json');
const PEERS_DIR = process.env.PEERS_DIR ?? join(tmpdir(), 'zeromem-bench-peers');
const PEER_VERSIONS = ['mem0ai@3.3.1', '@mastra/memory@1.31.0', '@mastra/libsql@1.23.1', '@mastra/core@1.71.0'];

const log = (msg: string) => console.error(`[node-storage] ${msg} (load ${loadavg()[0]!.toFixed(1)})`);

function worker<T>(...args: string[]): T {
  const out = execFileSync(process.execPath, ['--import', 'tsx', WORKER, ...args], { encoding: 'utf8', maxBuffer: 1 << 26, env: { ...process.env, MEM0_TELEMETRY: 'false' } });
  return JSON.parse(out.trim().split('\n').at(-1)!) as T;
}

function withDir<T>(work: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-bench-'));
  try {
    return work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function installPeers(): void {
  if (existsSync(join(PEERS_DIR, 'node_modules', 'mem0ai')) && existsSync(join(PEERS_DIR, 'node_modules', '@mastra', 'memory'))) return;
  log(`installing ${PEER_VERSIONS.join(' ')} into ${PEERS_DIR}`);
  mkdirSync(PEERS_DIR, { recursive: true });
  writeFileSync(join(PEERS_DIR, 'package.json'), JSON.stringify({ name: 'zeromem-bench-peers', private: true, type: 'module', overrides: { sharp: '0.33.5' } }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', ...PEER_VERSIONS], { cwd: PEERS_DIR, stdio: 'inherit', env: { ...process.env, MEM0_TELEMETRY: 'false' } });
}

interface Latency {
  p50: number;
  p95: number;
}
interface Import {
  recordsPerSecond: number;
  bytesPerRecord: number | null;
}
interface PeerResult {
  n: number;
  loadMsPerMemory: number;
  write: Latency;
  recall: Latency;
}

interface Run {
  run: number;
  at: string;
  loadAverage: [number, number];
  ack?: Record<'disk' | 'diskRelaxed' | 'fake' | 'raw', Latency>;
  import10k?: Record<'disk' | 'fake' | 'raw', Import>;
  import100k: Partial<Record<'disk' | 'fake' | 'raw', Import>>;
  open100k: { fromDiskMs?: number[]; fakeInProcessMs?: number; bytesPerRecordPrepared?: number; rawReadAllMs?: number; rssMB?: number[]; firstRememberMs?: number };
}

interface PeerRun {
  run: number;
  at: string;
  loadAverage: [number, number];
  peers: Record<'zeromem' | 'mem0' | 'mastra', PeerResult>;
}

function runOnce(number: number): Run {
  const loadBefore = loadavg()[0]!;
  let ack: Run['ack'];
  if (PARTS.has('ack')) {
    log('remember ack');
    ack = {
      disk: withDir((dir) => worker<Latency>('ack', 'disk', dir)),
      diskRelaxed: withDir((dir) => worker<Latency>('ack', 'disk-relaxed', dir)),
      fake: withDir((dir) => worker<Latency>('ack', 'fake', dir)),
      raw: withDir((dir) => worker<Latency>('ack', 'raw', dir)),
    };
  }
  let import10k: Run['import10k'];
  if (PARTS.has('import10k')) {
    log('import 10k');
    import10k = {
      disk: withDir((dir) => worker<Import>('import', 'disk', dir, '10000')),
      fake: withDir((dir) => worker<Import>('import', 'fake', dir, '10000')),
      raw: withDir((dir) => worker<Import>('import', 'raw', dir, '10000')),
    };
  }
  const import100k: Run['import100k'] = {};
  const open100k: Run['open100k'] = {};
  if (PARTS.has('open100k')) {
    log('import 100k, then open-to-first-recall from disk');
    import100k.disk = withDir((dir) => {
      const imported = worker<Import>('import', 'disk', dir, '100000');
      open100k.bytesPerRecordPrepared = worker<{ bytesPerRecord: number }>('prepare', 'disk', dir).bytesPerRecord;
      const opens = Array.from({ length: ROUNDS }, () => worker<{ openToFirstRecallMs: number; rssMB: number }>('open', 'disk', dir));
      open100k.fromDiskMs = opens.map((open) => open.openToFirstRecallMs);
      open100k.rssMB = opens.map((open) => open.rssMB);
      open100k.rawReadAllMs = median(Array.from({ length: ROUNDS }, () => worker<{ readAllMs: number }>('raw-read', 'disk', dir).readAllMs));
      open100k.firstRememberMs = worker<{ openToFirstRememberMs: number }>('first-write', 'disk', dir).openToFirstRememberMs; // last: it writes
      return imported;
    });
  }
  if (PARTS.has('fake100k')) {
    log('import 100k and open-to-first-recall, fake-indexeddb');
    const fake100k = worker<Import & { openToFirstRecallMs: number }>('fake-open', '100000');
    import100k.fake = fake100k;
    open100k.fakeInProcessMs = fake100k.openToFirstRecallMs;
  }
  if (PARTS.has('raw100k')) {
    log('import 100k, raw better-sqlite3');
    import100k.raw = withDir((dir) => worker<Import>('import', 'raw', dir, '100000'));
  }
  return {
    run: number,
    at: new Date().toISOString(),
    loadAverage: [Math.round(loadBefore * 10) / 10, Math.round(loadavg()[0]! * 10) / 10],
    ...(ack ? { ack } : {}),
    ...(import10k ? { import10k } : {}),
    import100k,
    open100k,
  };
}

function runPeers(number: number): PeerRun {
  const loadBefore = loadavg()[0]!;
  installPeers();
  const peer = (name: string, n: number) => {
    log(`peer ${name}, ${n} memories`);
    return withDir((dir) => worker<PeerResult>('peer', name, dir, String(n), PEERS_DIR));
  };
  const peers = { zeromem: peer('zeromem', PEER_N), mem0: peer('mem0', PEER_N), mastra: peer('mastra', MASTRA_N) };
  return { run: number, at: new Date().toISOString(), loadAverage: [Math.round(loadBefore * 10) / 10, Math.round(loadavg()[0]! * 10) / 10], peers };
}

const med = (runs: Run[], pick: (run: Run) => number | null | undefined) => {
  const values = runs.map(pick).filter((v): v is number => typeof v === 'number');
  return values.length ? Math.round(median(values) * 1000) / 1000 : NaN;
};

function tables(runs: Run[]): string {
  const each = (pick: (run: Run) => number | null | undefined) => runs.map((run) => pick(run) ?? '–').join(' / ');
  // A part the runs skipped (--parts, --writes) has no row.
  const row = (label: string, pick: (run: Run) => number | null | undefined) => (Number.isNaN(med(runs, pick)) ? '' : `| ${label} | ${med(runs, pick)} | ${each(pick)} |`);
  const lines = [
    `Runs: ${runs.length} (load average at start/end: ${runs.map((r) => r.loadAverage.join('–')).join(', ')}). Median, then each run.`,
    '',
    '| measure | median | runs |',
    '|---|---|---|',
    row('remember ack p50, disk, durability default (fsync per commit) (ms)', (r) => r.ack?.disk.p50),
    row('remember ack p95, disk, default (ms)', (r) => r.ack?.disk.p95),
    row('remember ack p50, disk, durability relaxed (ms)', (r) => r.ack?.diskRelaxed.p50),
    row('remember ack p95, disk, relaxed (ms)', (r) => r.ack?.diskRelaxed.p95),
    row('remember ack p50, fake-indexeddb in memory (ms)', (r) => r.ack?.fake.p50),
    row('raw better-sqlite3 insert of the same rows p50, synchronous FULL (ms)', (r) => r.ack?.raw.p50),
    row('raw better-sqlite3 p95 (ms)', (r) => r.ack?.raw.p95),
    row('disk ack / raw insert, p50 (x)', (r) => (r.ack ? ratio(r.ack.disk.p50, r.ack.raw.p50) : null)),
    row('floor of this design: raw insert p50 + fake-indexeddb ack p50 (ms)', (r) => (r.ack ? r.ack.raw.p50 + r.ack.fake.p50 : null)),
    row('import 10k, disk (records/s)', (r) => r.import10k?.disk.recordsPerSecond),
    row('import 10k, fake-indexeddb (records/s)', (r) => r.import10k?.fake.recordsPerSecond),
    row('import 10k, raw better-sqlite3 (records/s)', (r) => r.import10k?.raw.recordsPerSecond),
    row('import 100k, disk (records/s)', (r) => r.import100k.disk?.recordsPerSecond),
    row('import 100k, fake-indexeddb (records/s)', (r) => r.import100k.fake?.recordsPerSecond),
    row('import 100k, raw better-sqlite3 (records/s)', (r) => r.import100k.raw?.recordsPerSecond),
    row('raw / disk, import 100k (x)', (r) => (r.import100k.raw && r.import100k.disk ? ratio(r.import100k.raw.recordsPerSecond, r.import100k.disk.recordsPerSecond) : null)),
    row('open-to-first-recall, 100k from disk, new process (ms, median of rounds)', (r) => (r.open100k.fromDiskMs ? median(r.open100k.fromDiskMs) : null)),
    row('open-to-first-recall, 100k fake-indexeddb, same process (ms)', (r) => r.open100k.fakeInProcessMs),
    row('open-to-first-remember, 100k from disk, new process (ms; open, then one remember acknowledged)', (r) => r.open100k.firstRememberMs),
    row('raw better-sqlite3 reading every row of the same file, nothing decoded (ms)', (r) => r.open100k.rawReadAllMs),
    row('resident memory after open-to-first-recall, 100k from disk (MB, median of rounds)', (r) => (r.open100k.rssMB ? median(r.open100k.rssMB) : null)),
    row('bytes on disk per record, records only (disk / raw better-sqlite3)', (r) => r.import100k.disk?.bytesPerRecord),
    row('bytes on disk per record, raw better-sqlite3', (r) => r.import100k.raw?.bytesPerRecord),
    row('bytes on disk per record, embedded (128-d) + index snapshot', (r) => r.open100k.bytesPerRecordPrepared),
  ];
  return lines.filter((line, i) => i < 4 || line !== '').join('\n');
}

function peerTable(runs: PeerRun[]): string {
  const med2 = (pick: (run: PeerRun) => number) => Math.round(median(runs.map(pick)) * 1000) / 1000;
  const lines = [
    `Runs: ${runs.length} (load average at start/end: ${runs.map((r) => r.loadAverage.join('–')).join(', ')}); medians over runs. Memories loaded: zeromem and mem0 ${runs[0]!.peers.zeromem.n.toLocaleString('en')}, Mastra ${runs[0]!.peers.mastra.n.toLocaleString('en')}; same 384-d deterministic embedder.`,
    '',
    '| library | load per memory (ms) | write per memory p50 / p95 (ms) | recall p50 / p95 (ms) | write p50 / zeromem (x) | recall p50 / zeromem (x) |',
    '|---|---|---|---|---|---|',
  ];
  const labels = { zeromem: 'zeromem on disk (Node default)', mem0: 'mem0ai 3.3.1 OSS Memory, SQLite vector store, infer: false', mastra: '@mastra/memory 1.31.0 on libSQL' };
  for (const name of ['zeromem', 'mem0', 'mastra'] as const) {
    const m = (pick: (p: PeerResult) => number) => med2((r) => pick(r.peers[name]));
    const z = (pick: (p: PeerResult) => number) => med2((r) => pick(r.peers.zeromem));
    lines.push(
      `| ${labels[name]} | ${m((p) => p.loadMsPerMemory)} | ${m((p) => p.write.p50)} / ${m((p) => p.write.p95)} | ${m((p) => p.recall.p50)} / ${m((p) => p.recall.p95)} | ${ratio(m((p) => p.write.p50), z((p) => p.write.p50))} | ${ratio(m((p) => p.recall.p50), z((p) => p.recall.p50))} |`,
    );
  }
  return lines.join('\n');
}

const previous = APPEND && existsSync(outFile) ? (JSON.parse(readFileSync(outFile, 'utf8')) as { runs: Array<Run & PeerRun> }).runs : [];
const runs = [...previous, PEERS ? runPeers(previous.length + 1) : runOnce(previous.length + 1)] as Array<Run & PeerRun>;
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(
  outFile,
  `${JSON.stringify(
    {
      benchmark: 'node-storage',
      command: `npx tsx test/bench/node-storage.ts${PEERS ? ' --peers' : WRITES ? ' --writes' : ''} [--append]`,
      environment: { node: process.version, os: `${platform()} ${release()}`, cpus: cpus().length, cpuModel: cpus()[0]?.model },
      config: PEERS ? { peerN: PEER_N, mastraN: MASTRA_N, peers: PEER_VERSIONS } : { rounds: ROUNDS },
      runs,
    },
    null,
    1,
  )}\n`,
);
console.log(PEERS ? peerTable(runs) : tables(runs));
