import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = fileURLToPath(new URL('../src/bin.ts', import.meta.url));

/** Output and exit code of a finished CLI process. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `zeromem <args>` as a real child process from the repository root: the bin's
 * source (`src/bin.ts`) under `node --import tsx`. The built bin under plain node is run
 * by the package test (test/package).
 */
export function runCli(args: readonly string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  const nodeArgs = ['--import', 'tsx', BIN, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgs, {
      cwd: ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
