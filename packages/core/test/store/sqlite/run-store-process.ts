import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The namespace store-process.ts writes and reads. */
export const NS = { userId: 'u1' };

const SCRIPT = fileURLToPath(new URL('./store-process.ts', import.meta.url));

/** Options of {@link startStoreProcess}. */
export interface StoreProcessOptions {
  env?: NodeJS.ProcessEnv;
  uid?: number;
  gid?: number;
  /** Another script of this folder to run instead of store-process.ts (e.g. fault-process.ts). */
  script?: string;
  /** Runs the process in a mount namespace of its own with a tmpfs of this size (e.g. `4m`) on `dir`: a small disk that fills up ({@link canMountTmpfs}). */
  tmpfs?: { dir: string; size: string };
}

/** Whether this machine lets a test mount a tmpfs in a user and mount namespace of its own (`unshare`): nothing is mounted outside it. */
export function canMountTmpfs(): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-tmpfs-probe-'));
  try {
    return spawnSync('unshare', [...UNSHARE, 'sh', '-c', 'mount -t tmpfs -o size=1m tmpfs "$0"', dir]).status === 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const UNSHARE = ['--user', '--map-root-user', '--mount'];

/** A running store-process.ts: its lines of output so far, and a way to wait for one. */
export interface StoreProcess {
  child: ChildProcess;
  lines: string[];
  /** Resolves with the first line (counting those seen already) that `match` accepts. */
  waitFor(match: (line: string) => boolean): Promise<string>;
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/** Starts `store-process.ts <args>` under `node --import tsx`; `uid`/`gid` run it as another user. */
export function startStoreProcess(args: string[], options: StoreProcessOptions = {}): StoreProcess {
  const node = [process.execPath, '--import', 'tsx', options.script ? fileURLToPath(new URL(options.script, import.meta.url)) : SCRIPT, ...args];
  const [command, ...rest] = options.tmpfs
    ? ['unshare', ...UNSHARE, 'sh', '-c', `mount -t tmpfs -o size=${options.tmpfs.size} tmpfs "$0" && exec "$@"`, options.tmpfs.dir, ...node]
    : node;
  const child = spawn(command!, rest, {
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.uid !== undefined ? { uid: options.uid, gid: options.gid } : {}),
  });
  const lines: string[] = [];
  const waiters: Array<{ match: (line: string) => boolean; resolve: (line: string) => void }> = [];
  let buffer = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.match(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
    const end = (code: number | null, signal: NodeJS.Signals | null) => {
      for (const waiter of waiters) waiter.resolve(`exited ${code ?? signal}: ${stderr}`);
      resolve({ code, signal, stderr });
    };
    child.on('close', end);
    // A process that could not start (e.g. another user cannot reach this Node's binary) ends
    // the waits at once with the reason, rather than leaving them to the test's timeout.
    child.on('error', (err) => {
      stderr += `could not start ${command}: ${err.message}`;
      end(-1, null);
    });
  });
  return {
    child,
    lines,
    exited,
    waitFor: (match) => {
      const seen = lines.find(match);
      return seen !== undefined ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

/** Runs store-process.ts to its end and returns its output lines (rejects on a non-zero exit). */
export async function runStoreProcess(args: string[], options: StoreProcessOptions = {}): Promise<string[]> {
  const process = startStoreProcess(args, options);
  const { code, stderr } = await process.exited;
  if (code !== 0) throw new Error(`store-process ${args.join(' ')} exited with ${code}: ${stderr}`);
  return process.lines;
}

/** A running `store-process.ts serve`: sends one command at a time per call and resolves with its answer line. */
export interface ServingProcess extends StoreProcess {
  send(command: Record<string, unknown>): Promise<{ ok?: unknown; error?: string; message?: string }>;
}

/** Starts `store-process.ts serve <directory> <name>` and resolves once the store is open. */
export async function startServingProcess(directory: string, name: string): Promise<ServingProcess> {
  const started = startStoreProcess(['serve', directory, name]);
  const first = await started.waitFor((line) => line === 'open' || line.startsWith('exited'));
  if (first !== 'open') throw new Error(`store-process serve did not open the store: ${first}`);
  let answered = started.lines.length;
  let queue = Promise.resolve();
  const send = (command: Record<string, unknown>) => {
    const reply = queue.then(async () => {
      const index = answered++;
      started.child.stdin!.write(`${JSON.stringify(command)}\n`);
      const waited = await started.waitFor(() => started.lines.length > index);
      const line = started.lines[index];
      if (line === undefined) throw new Error(waited); // it exited: `exited <code>: <stderr>`
      return JSON.parse(line) as { ok?: unknown; error?: string; message?: string };
    });
    queue = reply.then(
      () => undefined,
      () => undefined,
    );
    return reply;
  };
  return { ...started, send };
}
