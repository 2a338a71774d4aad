import { readFileSync, readdirSync, statSync } from 'node:fs';
import net from 'node:net';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Memory, type ListPage, type ZeromemError } from '../src/index.ts';
import { replicaOf } from '../src/internal.ts';
import { hashingEmbedder } from '../../../test/kit/hashing-embedder.ts';
import { openTestMemory } from './helpers.ts';

/**
 * "Zero-token memory operations": no verb of Memory reaches the network (so no LLM, no
 * remote embedding, no telemetry). Checked at run time with throwing stubs that count
 * calls, and statically over core's dependencies and imports.
 */

const CORE = join(dirname(fileURLToPath(import.meta.url)), '..');

const calls: string[] = [];
function tripwire(name: string) {
  return vi.fn(() => {
    calls.push(name);
    throw new Error(`network access: ${name}`);
  });
}
function trippingClass(name: string) {
  return class {
    constructor() {
      calls.push(name);
      throw new Error(`network access: ${name}`);
    }
  };
}

beforeEach(() => {
  calls.length = 0;
  vi.stubGlobal('fetch', tripwire('fetch'));
  vi.stubGlobal('XMLHttpRequest', trippingClass('XMLHttpRequest'));
  vi.stubGlobal('WebSocket', trippingClass('WebSocket'));
  vi.stubGlobal('EventSource', trippingClass('EventSource'));
  // Below the web APIs: every TCP/TLS connection in Node goes through net.Socket#connect.
  vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(tripwire('net.Socket#connect') as never);
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** Lets pending IndexedDB work and promise callbacks run, without timers. */
async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** A Memory whose method calls are recorded, to prove every verb was exercised. */
function recording(memory: Memory, used: Set<string>): Memory {
  return new Proxy(memory, {
    get(target, property) {
      const value = Reflect.get(target, property) as unknown; // target as receiver: getters read private fields
      if (typeof value !== 'function') return value;
      used.add(String(property));
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
}

describe('zero LLM, zero network', () => {
  it('the stubs are live: a network call would be counted and would fail', () => {
    expect(() => fetch('https://example.com')).toThrow('network access: fetch');
    expect(() => new WebSocket('wss://example.com')).toThrow('network access: WebSocket');
    expect(() => new XMLHttpRequest()).toThrow('network access: XMLHttpRequest');
    expect(() => net.connect(443, 'example.com')).toThrow('network access');
    expect(calls).toEqual(['fetch', 'WebSocket', 'XMLHttpRequest', 'net.Socket#connect']);
    calls.length = 0;
  });

  it('every verb of Memory, with an embedder, a watch and a sweep timer tick, makes no network call', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const backgroundErrors: ZeromemError[] = [];
    const opened = await openTestMemory({ embedder: hashingEmbedder(), sweepEveryMs: 60_000, onBackgroundError: (err) => backgroundErrors.push(err) });
    const { clock } = opened;
    const used = new Set<string>();
    const memory = recording(opened.memory, used);
    const ns = { userId: 'u1', agentId: 'support' };

    const pages: ListPage[] = [];
    const stop = memory.watch(ns, { limit: 10 }, (page) => pages.push(page));
    const { id } = await memory.remember({ namespace: ns, content: 'Prefers phone calls', tags: ['contact'] });
    await memory.rememberMany([
      { namespace: ns, content: 'Charging port is loose', ttl: '1h' },
      { namespace: ns, content: 'Work order TS20240315', metadata: { order: 'TS20240315' } },
    ]);
    expect((await memory.get(ns, id))?.content).toBe('Prefers phone calls');
    await memory.update(ns, id, { content: 'Prefers phone calls after 5pm', importance: 0.8 });
    expect(memory.pendingEmbeddings()).toBeGreaterThanOrEqual(0);
    await memory.whenEmbedded();
    const recalled = await memory.recall(ns, 'phone calls', { k: 3 });
    expect(recalled.hits[0]?.id).toBe(id);
    expect(recalled.vector).toBe('used');
    expect((await memory.list(ns)).items).toHaveLength(3);
    expect(await memory.count(ns, { tags: { any: ['contact'] } })).toBe(1);
    expect((await memory.stats(ns)).count).toBe(3);
    const built = await memory.buildContext({ namespace: ns, query: 'phone calls', budget: 200, system: 'Be brief.' });
    expect(built.report.included.map((i) => i.id)).toContain(id);
    expect((await memory.tokenizer()).id).toBe('o200k_base');
    const session = memory.session({ namespace: ns, id: 'zero-llm' });
    await session.addTurn('user', 'Call me tomorrow', { durable: true });
    const sessionContext = await session.context('call');
    expect(sessionContext.report.layers.session.items).toBe(1);
    expect((await session.end()).promoted).toHaveLength(1);
    expect(await memory.listNamespaces({ userId: 'u1' })).toEqual([ns]);
    expect((await memory.history(ns, id)).map((v) => v.version)).toEqual([1]); // the update above
    expect(await memory.forgetWhere(ns, { metadata: { order: 'TS20240315' } })).toHaveLength(1);
    expect((await memory.markUsed(ns, [id]))[0]?.importance).toBeGreaterThan(0.8);
    expect((await memory.consolidate(ns, { dryRun: true })).groups).toEqual([]);
    expect((await memory.retier({ namespace: ns })).scanned).toBe(3); // with the promoted session turn
    const exported = await memory.exportJsonl({ namespace: ns }, { vectors: true });
    expect(await memory.importJsonl(exported)).toMatchObject({ imported: 0, deduplicated: 3 });
    const state = { id: 'r1', content: 'From another replica', source: 'user', layer: 'long_term', tags: [], metadata: {}, importance: 0.5, createdAt: 1, updatedAt: 1, expiresAt: null, version: 1, mergedFrom: [], key: null, validFrom: null, statedUntil: null } as const;
    expect((await replicaOf(opened.memory).apply({ userId: 'u2' }, [{ put: { ...state, tags: [], mergedFrom: [] } }], { after: 0 })).written).toHaveLength(1);

    // The sweep timer: expire the ttl record, let one interval elapse, wait for its sweep.
    clock.advance(2 * 3_600_000);
    vi.advanceTimersByTime(60_000);
    for (let i = 0; i < 50 && !(await memory.audit(ns)).some((e) => e.op === 'expire'); i++) await settle(2);
    expect((await memory.audit(ns)).filter((e) => e.op === 'expire')).toHaveLength(1);
    expect(await memory.sweep()).toBe(0); // the timer already swept it

    await settle();
    expect(pages.length).toBeGreaterThan(1);
    stop();
    expect(await memory.forget(ns, id)).toBe(true);
    await memory.remember({ namespace: { userId: 'u3' }, content: 'Lives in Lyon', key: 'home.city' });
    expect((await memory.profile({ userId: 'u3' })).map((entry) => entry.key)).toEqual(['home.city']);
    await memory.remember({ namespace: { userId: 'u1' }, content: 'user level' });
    expect(await memory.forgetNamespace({ userId: 'u1' })).toBe(1);
    await memory.remember({ namespace: { userId: 'u1', scope: 'x' }, content: 'scoped' });
    expect(await memory.forgetUser('u1')).toBe(2); // the scoped memory and the promoted session turn
    expect(memory.name).toBe('test');
    await memory.close();

    // Every method of Memory was exercised (a new verb must join this test).
    const methods = Object.getOwnPropertyNames(Memory.prototype).filter((name) => {
      const descriptor = Object.getOwnPropertyDescriptor(Memory.prototype, name)!;
      return name !== 'constructor' && typeof descriptor.value === 'function';
    });
    expect(methods.filter((name) => !used.has(name))).toEqual([]);
    expect(backgroundErrors).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('failing calls make no network call either (errors are local, not reported anywhere)', async () => {
    const { memory } = await openTestMemory();
    const ns = { userId: 'u1' };
    await memory.remember({ namespace: ns, content: '' }).catch(() => undefined);
    await memory.update(ns, 'missing', { importance: 1 }).catch(() => undefined);
    await memory.recall(ns, 42 as never).catch(() => undefined);
    await memory.list(undefined as never).catch(() => undefined);
    await memory.close();
    expect(calls).toEqual([]);
  });
});

describe('zero LLM, statically', () => {
  /**
   * Core's dependencies: storage (Dexie; in Node, optional, better-sqlite3 for the files), the BPE token counter contexts are measured with
   * (its ranks ship inside the package; it never downloads), and the date parser recall
   * reads time expressions in queries with (pure code), and OpenCC's Traditional ->
   * Simplified tables (opencc-js, pure code and data), and the English Porter stemmer of
   * the text index (stemmer, pure code). Nothing that talks to a server.
   */
  const ALLOWED = ['chrono-node', 'dexie', 'gpt-tokenizer', 'opencc-js', 'stemmer'];
  const OPTIONAL = ['better-sqlite3'];
  /** Node's file APIs (and `node:buffer`'s size limit), only in the Node store (src/store/sqlite); no net, http, dns or child_process. */
  const NODE_STORE_BUILTINS = ['node:buffer', 'node:fs', 'node:os', 'node:path', 'node:v8', 'node:module'];

  it('package.json depends on exactly the on-device libraries', () => {
    const pkg = JSON.parse(readFileSync(join(CORE, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    expect(Object.keys(pkg.dependencies ?? {}).sort()).toEqual(ALLOWED);
    expect(pkg.peerDependencies ?? {}).toEqual({});
    expect(Object.keys(pkg.optionalDependencies ?? {})).toEqual(OPTIONAL);
  });

  it('no source file imports anything but those libraries and relative paths', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.(ts|tsx|js|mjs|cjs)$/.test(entry)) files.push(path);
      }
    };
    walk(join(CORE, 'src'));
    expect(files.length).toBeGreaterThan(20);
    const offenders: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      // Statements start a line; a string or comment that mentions an import does not count.
      const specifiers = [
        ...text.matchAll(/^\s*(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]/gm),
        ...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
        ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
        ...text.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g),
      ].map((match) => match[1]!);
      for (const specifier of specifiers) {
        const relativePath = specifier.startsWith('./') || specifier.startsWith('../');
        const nodeStore = relative(CORE, file).startsWith(join('src', 'store', 'sqlite'));
        const libraries = nodeStore ? [...ALLOWED, ...OPTIONAL, ...NODE_STORE_BUILTINS] : ALLOWED;
        const allowed = libraries.some((dep) => specifier === dep || specifier.startsWith(`${dep}/`));
        if (!relativePath && !allowed) offenders.push(`${relative(CORE, file)} imports ${specifier}`);
      }
      // A computed import or require could load anything.
      if (/\bimport\(\s*[^'"\s)]/.test(text) || /\brequire\(\s*[^'"\s)]/.test(text)) offenders.push(`${relative(CORE, file)} has a computed import`);
      // No network API is even named in code.
      for (const api of [/\bfetch\s*\(/, /\bXMLHttpRequest\b/, /\bnew\s+WebSocket\b/, /\bEventSource\b/, /\bsendBeacon\b/]) {
        if (api.test(text)) offenders.push(`${relative(CORE, file)} uses ${api.source}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
