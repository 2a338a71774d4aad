import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import WebSocket from 'ws';
import { namespaceKey, openMemory, type Embedder, type Memory, type OpenMemoryOptions, type Namespace, type ZeromemError } from '@zeromem/core';
import { replicatedState, type ReplicatedRecord } from '@zeromem/core/internal';
import { issueToken, startRelay, type Access, type Relay } from '@zeromem/relay';
import { shareNamespace, type ShareOptions, type SharedNamespace } from '../src/index.ts';

/** The secret every test relay signs with. */
export const SECRET = 'sync-test-secret-0123456789-abcdefghijklmnopqrstuvwxyz';

const cleanups: Array<() => Promise<void> | void> = [];

/** Closes every share, memory and relay the helpers opened, newest first, and removes their directories. */
export async function cleanup(): Promise<void> {
  for (const close of cleanups.splice(0).reverse()) await close();
}

/** A relay on an ephemeral port (or `port`) with a fresh data directory (or `dataDir`). */
export async function testRelay(options: { dataDir?: string; port?: number; maxMessageBytes?: number } = {}): Promise<Relay & { dataDir: string }> {
  const dataDir = options.dataDir ?? tempDir();
  const limits = options.maxMessageBytes === undefined ? {} : { maxMessageBytes: options.maxMessageBytes };
  const relay = await startRelay({ secret: SECRET, dataDir, logLevel: 'silent', port: options.port ?? 0, ...limits });
  let closed = false;
  const close = relay.close.bind(relay);
  const wrapped = Object.assign(relay, {
    dataDir,
    close: async () => {
      if (closed) return;
      closed = true;
      await close();
    },
  });
  cleanups.push(() => wrapped.close());
  return wrapped;
}

/** A fresh temporary directory, removed by {@link cleanup}. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-sync-test-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A token for these rooms, valid for an hour. */
export function token(rooms: string[], access: Access = 'read-write', subject = 'tester'): Promise<string> {
  return issueToken({ secret: SECRET, subject, rooms, access, ttlSeconds: 3600 });
}

/** One device: a memory on its own IndexedDB, and its errors. */
export interface Device {
  memory: Memory;
  factory: IDBFactory;
  name: string;
  errors: ZeromemError[];
  share: (namespace: Namespace, options: Partial<ShareOptions> & { url: string; token: string }) => Promise<SharedNamespace>;
  /** Closes the memory (and its shares first); the data stays in `factory`. */
  close: () => Promise<void>;
  reopen: () => Promise<Device>;
}

/** Opens a device (a memory on a fresh or given fake IndexedDB). */
export async function device(name = 'device', factory = new IDBFactory(), embedder?: Embedder, options: Partial<OpenMemoryOptions> = {}): Promise<Device> {
  const memory = await openMemory({ indexedDB: factory, IDBKeyRange, name, ...(embedder ? { embedder } : {}), ...options });
  const shares: SharedNamespace[] = [];
  const errors: ZeromemError[] = [];
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const share of shares) await share.close();
    await memory.close();
  };
  cleanups.push(close);
  return {
    memory,
    factory,
    name,
    errors,
    close,
    reopen: () => device(name, factory, embedder, options),
    share: async (namespace, options) => {
      const share = await shareNamespace(memory, namespace, {
        WebSocketPolyfill: WebSocket,
        pollMs: 20,
        maxBackoffMs: 100,
        onError: (err) => errors.push(err),
        ...options,
      });
      shares.push(share);
      return share;
    },
  };
}

/**
 * The common start of a two-device test: a relay, a read-write token for `namespace`, and
 * devices `laptop` and `phone` (their memories opened with `options`, e.g. one controlled
 * clock) sharing it as `a` and `b`, both synced.
 */
export async function twoSyncedDevices(namespace: Namespace, options: Partial<OpenMemoryOptions> = {}) {
  const relay = await testRelay();
  const rw = await token([namespaceKey(namespace)]);
  const laptop = await device('laptop', new IDBFactory(), undefined, options);
  const phone = await device('phone', new IDBFactory(), undefined, options);
  const a = await laptop.share(namespace, { url: relay.url, token: rw });
  const b = await phone.share(namespace, { url: relay.url, token: rw });
  await Promise.all([a.synced, b.synced]);
  return { relay, rw, laptop, phone, a, b };
}

/** Every live record of the namespace (closed versions of keyed facts too) as replicas must agree on it, sorted by id. */
export async function records(memory: Memory, namespace: Namespace): Promise<ReplicatedRecord[]> {
  const all: ReplicatedRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await memory.list(namespace, { limit: 1000, includeClosed: true, ...(cursor ? { cursor } : {}) });
    all.push(...page.items.map(replicatedState));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return all.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Polls `check` until it returns true; throws after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** True when any file under `dir` contains `needle`. */
export function directoryContains(dir: string, needle: string): boolean {
  const bytes = Buffer.from(needle, 'utf8');
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .some((entry) => readFileSync(join(entry.parentPath, entry.name)).includes(bytes));
}

/**
 * Every row of every object store of every database in `factory` (or only the one named
 * `only`, only its stores named in `stores`), as JSON text (Uint8Arrays as their bytes in latin1).
 */
export async function dumpAll(factory: IDBFactory, only?: string, stores?: string[]): Promise<string> {
  const out: string[] = [];
  for (const info of await factory.databases()) {
    if (only !== undefined && info.name !== only) continue;
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = factory.open(info.name!);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    for (const storeName of Array.from(db.objectStoreNames).filter((store) => !stores || stores.includes(store))) {
      const rows = await new Promise<unknown[]>((resolve, reject) => {
        const request = db.transaction(storeName).objectStore(storeName).getAll();
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      out.push(JSON.stringify(rows, (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : value)));
    }
    db.close();
  }
  return out.join('\n');
}

/** The shared documents a device stores (its memory's document logs), as {@link dumpAll} gives them. */
export function storedDocuments(device: Device): Promise<string> {
  return dumpAll(device.factory, device.name, ['docUpdates']);
}

/** A WebSocket class for the provider that counts the bytes it sends and receives, and keeps them. */
export function countingSocket(): { WebSocketPolyfill: unknown; bytes: { sent: number; received: number }; sent: Buffer[]; received: Buffer[] } {
  const bytes = { sent: 0, received: 0 };
  const sent: Buffer[] = [];
  const received: Buffer[] = [];
  class Counting extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols);
      this.on('message', (data: ArrayBuffer | Buffer) => {
        bytes.received += data.byteLength;
        received.push(Buffer.from(data as ArrayBuffer));
      });
    }
    override send(data: Uint8Array, ...rest: unknown[]): void {
      bytes.sent += data.byteLength;
      sent.push(Buffer.from(data));
      (super.send as (...args: unknown[]) => void)(data, ...rest);
    }
  }
  return { WebSocketPolyfill: Counting, bytes, sent, received };
}
