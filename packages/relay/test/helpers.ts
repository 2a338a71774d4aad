import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { type Access, type Relay, type RelayOptions, issueToken, startRelay } from '../src/index.ts';

/** The secret every test relay signs with (48 bytes). */
export const SECRET = 'test-secret-0123456789-abcdefghijklmnopqrstuvwxyz';

/** A fresh temporary directory; removed by {@link cleanup}. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-relay-test-'));
  created.push(dir);
  return dir;
}

const created: string[] = [];
const closers: Array<() => Promise<void> | void> = [];

/** Closes every relay and provider opened by the helpers and removes their directories. */
export async function cleanup(): Promise<void> {
  for (const close of closers.splice(0).reverse()) await close();
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Starts an in-process relay on an ephemeral port with a fresh data directory (unless on PostgreSQL), logging nothing. */
export async function testRelay(options: Partial<RelayOptions> = {}): Promise<Relay & { dataDir: string }> {
  const dataDir = options.dataDir ?? (options.postgresUrl ? '' : tempDir());
  const relay = await startRelay({ secret: SECRET, dataDir, logLevel: 'silent', ...options });
  closers.push(() => relay.close());
  return Object.assign(relay, { dataDir });
}

/** A token for `rooms`, valid for an hour unless told otherwise. */
export function token(rooms: string[], options: { access?: Access; subject?: string; ttlSeconds?: number; now?: number; secret?: string } = {}): Promise<string> {
  return issueToken({
    secret: options.secret ?? SECRET,
    subject: options.subject ?? 'tester',
    rooms,
    access: options.access ?? 'read-write',
    ttlSeconds: options.ttlSeconds ?? 3600,
    ...(options.now !== undefined ? { now: options.now } : {}),
  });
}

/** A y-websocket client (the standard provider, Node `ws`) on its own Y.Doc (or `doc`), not yet synced. */
export function client(url: string, room: string, authToken: string, doc: Y.Doc = new Y.Doc()): { doc: Y.Doc; provider: WebsocketProvider } {
  const provider = new WebsocketProvider(url, encodeURIComponent(room), doc, {
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    params: { token: authToken },
    // Node 20 has BroadcastChannel: without this, clients in one process would sync around the relay.
    disableBc: true,
  });
  closers.push(() => {
    provider.destroy();
    doc.destroy();
  });
  return { doc, provider };
}

/** Resolves once the provider finished its first sync with the relay. */
export function synced(provider: WebsocketProvider, timeoutMs = 10_000): Promise<void> {
  if (provider.synced) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('provider did not sync')), timeoutMs);
    provider.once('sync', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Polls `check` until it returns true (or throws after `timeoutMs`). */
export async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** How a raw websocket attempt ended: opened, refused with an HTTP status, or closed with a code. */
export type Attempt =
  | { kind: 'refused'; status: number; body: string; documentBytes: number }
  | { kind: 'open'; socket: WebSocket; received: Uint8Array[] };

/**
 * Opens a raw websocket (no y-websocket client) to `path` with optional headers; resolves
 * with the HTTP refusal or the open socket and everything it receives.
 */
export function rawConnect(url: string, path: string, headers: Record<string, string> = {}): Promise<Attempt> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${url}${path}`, { headers });
    const received: Uint8Array[] = [];
    socket.on('message', (data: Buffer) => received.push(new Uint8Array(data)));
    socket.on('unexpected-response', (_request, response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ kind: 'refused', status: response.statusCode ?? 0, body, documentBytes: received.length }));
    });
    socket.on('open', () => {
      closers.push(() => socket.terminate());
      resolve({ kind: 'open', socket, received });
    });
    socket.on('error', (err) => {
      if (socket.readyState !== WebSocket.OPEN) reject(err);
    });
  });
}

/** Resolves with the close code of a socket. */
export function closeCode(socket: WebSocket, timeoutMs = 10_000): Promise<number> {
  return new Promise((resolve, reject) => {
    if (socket.readyState === WebSocket.CLOSED) reject(new Error('socket already closed'));
    const timer = setTimeout(() => reject(new Error('socket did not close')), timeoutMs);
    socket.once('close', (code: number) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** True when any file under `dir` contains `needle` (a byte search of the storage). */
export function directoryContains(dir: string, needle: string): boolean {
  const bytes = Buffer.from(needle, 'utf8');
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .some((entry) => readFileSync(join(entry.parentPath, entry.name)).includes(bytes));
}
