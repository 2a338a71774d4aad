import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The zeromem-mcp bin's source, run under `node --import tsx` (test/package runs the built one). */
export const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'bin.ts');

/** A fresh ZEROMEM_HOME for a test file's servers (they store on disk); `remove` deletes it. */
export function tempHome(): { ZEROMEM_HOME: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-mcp-home-'));
  return { ZEROMEM_HOME: dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The SDK's own client on the bin over stdio. */
export async function stdioClient(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ client: Client; stderr: () => string; close(): Promise<void>; process: () => { kill(signal: NodeJS.Signals): boolean }; exited: () => Promise<void> }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', BIN, ...args], env: { ...(process.env as Record<string, string>), ...env }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'zeromem-test', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid!;
  /** Resolves once the process is gone (signal 0 probes it; bounded at 10 s). */
  const exited = async () => {
    for (let i = 0; i < 200; i++) {
      try {
        process.kill(pid, 0);
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`zeromem-mcp (pid ${pid}) did not exit`);
  };
  return { client, stderr: () => stderr, close: () => client.close(), process: () => ({ kill: (signal) => process.kill(pid, signal) }), exited };
}

/** Starts the bin over HTTP on a free loopback port; resolves once it prints its URL. */
export async function httpServer(args: string[], env: Record<string, string>): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', BIN, '--http', '--port', '0', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = /serving (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`zeromem-mcp exited with ${code}: ${stderr}`)));
  });
  return {
    url,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A tool call's structured content (the call must have succeeded). */
export async function call<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

/** A tool call that must fail: its error text. */
export async function callError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!result.isError) throw new Error(`${name} should have failed: ${JSON.stringify(result.structuredContent)}`);
  return (result.content as Array<{ text: string }>).map((part) => part.text).join('\n');
}
