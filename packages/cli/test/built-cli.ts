import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built bin (`pnpm build`, or `tsc -b packages/cli/tsconfig.build.json`), run by plain node as users run it. */
export const BUILT_BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** A finished run of the built CLI. */
export interface BuiltRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout's JSON summary line (the last line). */
  summary: Record<string, any>;
}

/** A temporary ZEROMEM_HOME, removed by `dispose()`. */
export function tempHome(): { home: string; dispose(): void } {
  const home = mkdtempSync(join(tmpdir(), 'zeromem-jobs-'));
  return { home, dispose: () => rmSync(home, { recursive: true, force: true }) };
}

/** Starts `node dist/bin.js <args>` with ZEROMEM_HOME=home; stdout and stderr are pipes (not a TTY). */
export function startBuilt(args: readonly string[], home: string, cwd = home): { child: ChildProcess; done: Promise<BuiltRun> } {
  if (!existsSync(BUILT_BIN)) throw new Error(`${BUILT_BIN} is missing: build first (npx -y pnpm@10 build)`);
  const child = spawn(process.execPath, [BUILT_BIN, ...args], { cwd, env: { ...process.env, ZEROMEM_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<BuiltRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const last = stdout.trimEnd().split('\n').pop() ?? '';
      let summary: Record<string, any> = {};
      try {
        summary = JSON.parse(last);
      } catch {
        // no summary (killed): left empty
      }
      resolve({ code, signal, stdout, stderr, summary });
    });
  });
  return { child, done };
}

/** Runs the built CLI to its end. */
export function runBuilt(args: readonly string[], home: string, cwd?: string): Promise<BuiltRun> {
  return startBuilt(args, home, cwd).done;
}
