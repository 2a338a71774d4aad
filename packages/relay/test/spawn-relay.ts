import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SECRET } from './helpers.ts';

const BIN = fileURLToPath(new URL('../src/bin.ts', import.meta.url));

/** A `zeromem-relay` child process (the bin's source under `node --import tsx`; test/package runs the built one). */
export interface RelayProcess {
  child: ChildProcess;
  /** Resolves with the exit code once the process ended. */
  exited: Promise<number | null>;
  stdout: () => string;
  /** Everything written to stderr so far (JSON log lines). */
  stderr: () => string;
}

/** Spawns `zeromem-relay <args>` with ZEROMEM_RELAY_SECRET set unless `env` overrides it. */
export function spawnRelay(args: readonly string[], env: NodeJS.ProcessEnv = {}): RelayProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', BIN, ...args], {
    env: { ...process.env, ZEROMEM_RELAY_SECRET: SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** Runs `zeromem-relay <args>` to completion. */
export async function runRelay(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const relay = spawnRelay(args, env);
  const code = await relay.exited;
  return { code, stdout: relay.stdout(), stderr: relay.stderr() };
}

/** Starts a serving relay in `dataDir` on `port` (0: a free one); resolves once it printed its URL. */
export async function serveRelay(dataDir: string, extra: readonly string[] = [], port = 0, env: NodeJS.ProcessEnv = {}): Promise<RelayProcess & { url: string; port: number }> {
  const relay = spawnRelay(['--port', String(port), '--data-dir', dataDir, ...extra], env);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const url = /^(ws:\/\/\S+:(\d+))\n/.exec(relay.stdout());
    if (url) return { ...relay, url: url[1]!, port: Number(url[2]) };
    if (relay.child.exitCode !== null) {
      // 'exit' can come before the last stderr chunk; 'close' (exited) comes after it.
      await relay.exited;
      throw new Error(`relay exited early: ${relay.stderr()}`);
    }
    if (Date.now() > deadline) throw new Error(`relay did not start: ${relay.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
