import { IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { EXPORT_FORMAT, EXPORT_VERSION, ZeromemError, openMemory, type Memory } from '../src/index.ts';
import { replicaOf, type ApplyReplicatedResult } from '../src/internal.ts';
import { fakeClock, freshIndexedDB, openTestMemory } from './helpers.ts';

/**
 * Regression: a Proxy whose traps throw, or an input with a throwing getter, escaped the
 * API as a raw Error. Every public verb must answer such input with INVALID_INPUT, like any
 * other bad input, and leave the store as it was.
 */

const ns = { userId: 'u1' };

/** Every trap throws. */
function throwingProxy(target: object = {}): object {
  const trap = () => {
    throw new Error('hostile trap ran');
  };
  return new Proxy(target, {
    get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, getPrototypeOf: trap,
    set: trap, deleteProperty: trap, defineProperty: trap, isExtensible: trap, preventExtensions: trap, setPrototypeOf: trap,
  });
}

/** A proxy that was revoked: every operation on it, even Array.isArray, throws a TypeError. */
function revokedProxy(target: object = {}): object {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
}

/** The same plain object with one field (or every field) behind a throwing getter. */
function withThrowingGetter(value: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...value };
  Object.defineProperty(copy, key, {
    enumerable: true,
    get: () => {
      throw new Error(`getter of ${key} ran`);
    },
  });
  return copy;
}

/** Hostile stand-ins for one argument: proxies for it, and for a plain object each field throwing or a proxy. */
function hostileVariants(valid: unknown): Array<[string, unknown]> {
  const target = Array.isArray(valid) ? [] : {};
  const variants: Array<[string, unknown]> = [
    ['a Proxy with throwing traps', throwingProxy(target)],
    ['a revoked Proxy', revokedProxy(target)],
  ];
  if (Array.isArray(valid) && valid.length) {
    variants.push(['an array with a throwing index getter', Object.defineProperty([...valid], 0, { get: () => { throw new Error('index getter ran'); } })]);
    variants.push(['an array holding a throwing Proxy', [throwingProxy(), ...valid.slice(1)]]);
  }
  if (valid !== null && typeof valid === 'object' && !Array.isArray(valid)) {
    for (const key of Object.keys(valid)) {
      variants.push([`a throwing getter for ${key}`, withThrowingGetter(valid as Record<string, unknown>, key)]);
      variants.push([`a throwing Proxy as ${key}`, { ...valid, [key]: throwingProxy() }]);
      variants.push([`a revoked Proxy as ${key}`, { ...valid, [key]: revokedProxy() }]);
    }
  }
  return variants;
}

type Call = (memory: Memory, args: unknown[]) => unknown;

function throwRejected(result: ApplyReplicatedResult): ApplyReplicatedResult {
  const first = result.rejected[0];
  if (first) throw new ZeromemError(first.code, `change ${first.index} rejected`);
  return result;
}

/** Every public verb with valid arguments (each must succeed as given). */
const VERBS: Array<[string, Call, unknown[]]> = [
  ['remember', (m, a) => m.remember(a[0] as never, a[1] as never), [{ namespace: ns, content: 'new memory', tags: ['t'], metadata: { k: 1 }, createdAt: new Date(Date.UTC(2025, 0, 1)), ttl: '800d' }, { actor: 'a' }]],
  ['rememberMany', (m, a) => m.rememberMany(a[0] as never, a[1] as never), [[{ namespace: ns, content: 'batch one' }, { namespace: ns, content: 'batch two' }], { skipInvalid: false }]],
  ['get', (m, a) => m.get(a[0] as never, a[1] as never, a[2] as never), [ns, 'r1', { rewarm: false }]],
  ['update', (m, a) => m.update(a[0] as never, a[1] as never, a[2] as never, a[3] as never), [ns, 'r1', { content: 'changed', tags: ['x'] }, { ifVersion: 1 }]],
  ['recall', (m, a) => m.recall(a[0] as never, a[1] as never, a[2] as never), [ns, [{ role: 'user', content: 'stored' }], { k: 3, filters: { tags: { any: ['t'] } }, layers: ['long_term'] }]],
  ['buildContext', (m, a) => m.buildContext(a[0] as never), [{ namespace: ns, query: 'stored', budget: 200, layers: { session: { maxItems: 2 } } }]],
  ['session', (m, a) => m.session(a[0] as never), [{ namespace: ns, ttl: '1h', context: { budget: 100 } }]],
  ['session.addTurn', (m, a) => m.session({ namespace: ns }).addTurn(a[0] as never, a[1] as never, a[2] as never), ['user', 'hello', { durable: true, tags: ['x'] }]],
  ['session.context', (m, a) => m.session({ namespace: ns }).context(a[0] as never, a[1] as never), [[{ role: 'user', content: 'q' }], { budget: 100 }]],
  ['session.end', (m, a) => m.session({ namespace: ns }).end(a[0] as never), [{ extractFacts: false }]],
  ['list', (m, a) => m.list(a[0] as never, a[1] as never), [ns, { limit: 5, tags: { any: ['t'] } }]],
  ['count', (m, a) => m.count(a[0] as never, a[1] as never), [ns, { tags: { any: ['t'] } }]],
  ['stats', (m, a) => m.stats(a[0] as never), [ns]],
  ['forget', (m, a) => m.forget(a[0] as never, a[1] as never, a[2] as never), [ns, 'r1', { actor: 'a' }]],
  ['forgetWhere', (m, a) => m.forgetWhere(a[0] as never, a[1] as never, a[2] as never), [ns, { tags: { any: ['t'] } }, { actor: 'a' }]],
  ['forgetNamespace', (m, a) => m.forgetNamespace(a[0] as never, a[1] as never), [ns, { actor: 'a' }]],
  ['forgetUser', (m, a) => m.forgetUser(a[0] as never, a[1] as never), ['u1', { actor: 'a' }]],
  ['consolidate', (m, a) => m.consolidate(a[0] as never, a[1] as never), [ns, { dryRun: true }]],
  ['retier', (m, a) => m.retier(a[0] as never), [{ namespace: ns }]],
  ['markUsed', (m, a) => m.markUsed(a[0] as never, a[1] as never), [ns, ['r1']]],
  ['exportJsonl', (m, a) => m.exportJsonl(a[0] as never, a[1] as never), [{ namespace: ns }, { vectors: false }]],
  ['importJsonl', (m, a) => m.importJsonl(a[0] as never, a[1] as never), [[JSON.stringify({ format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt: 0, scope: { namespace: { userId: 'u2' } }, records: 0, vectors: null })], { skipInvalid: true }]],
  ['audit', (m, a) => m.audit(a[0] as never, a[1] as never), [ns, { limit: 5 }]],
  // A bad change is not thrown but returned in `rejected`, with its code.
  ['replica.apply (sync)', async (m, a) => throwRejected(await replicaOf(m).apply(a[0] as never, a[1] as never, a[2] as never)), [ns, [{ delete: 'r1' }], { after: 0 }]],
  ['watch', (m, a) => (m.watch(a[0] as never, a[1] as never, a[2] as never) as () => void)(), [ns, { limit: 5 }, () => {}]],
];

async function outcome(work: () => unknown): Promise<unknown> {
  try {
    await work();
    return 'resolved';
  } catch (err) {
    return err;
  }
}

describe('hostile objects are INVALID_INPUT for every public verb (regression: a throwing Proxy trap or getter escaped as a raw Error)', () => {
  it.each(VERBS)('%s', async (_name, call, valid) => {
    const t = await openTestMemory({ clock: fakeClock() });
    await t.memory.remember({ namespace: ns, id: 'r1', content: 'stored memory', tags: ['t'] });
    const before = await t.dump();
    const escaped: string[] = [];
    for (let position = 0; position < valid.length; position++) {
      for (const [variant, hostile] of hostileVariants(valid[position])) {
        const args = valid.map((arg, i) => (i === position ? hostile : arg));
        const result = await outcome(() => call(t.memory, args));
        if (!(result instanceof ZeromemError) || result.code !== 'INVALID_INPUT') escaped.push(`argument ${position}, ${variant}: ${result instanceof Error ? `${result.name}: ${result.message}` : String(result)}`);
      }
    }
    expect(escaped).toEqual([]);
    expect(await t.dump()).toBe(before);
    // The valid arguments work: the variants above differ from them only in the hostile part.
    expect(await outcome(() => call(t.memory, valid))).toBe('resolved');
  });

  it('importJsonl: a source whose iteration throws, or a Proxy of one', async () => {
    const t = await openTestMemory();
    await t.memory.remember({ namespace: ns, content: 'stored memory' });
    const before = await t.dump();
    const header = JSON.stringify({ format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt: 0, scope: { namespace: ns }, records: 1, vectors: null });
    async function* failing() {
      yield header;
      throw new Error('disk gone');
    }
    const sources: Array<[string, unknown]> = [
      ['an async generator that throws', failing()],
      ['a Proxy of a generator with throwing traps', throwingProxy(failing())],
      ['an iterable whose iterator getter throws', { [Symbol.iterator]: () => { throw new Error('no iterator'); } }],
    ];
    for (const [name, source] of sources) {
      const result = await outcome(() => t.memory.importJsonl(source as never));
      expect(result instanceof ZeromemError && result.code, `${name}: ${String(result)}`).toBe('INVALID_INPUT');
    }
    expect(await t.dump()).toBe(before);
  });

  it('openMemory', async () => {
    const valid = { name: 'hostile', clock: fakeClock(), limits: { maxTags: 4 }, lifecycle: { coldAfter: '1d' }, indexSnapshots: { minRecords: 10 }, ...freshIndexedDB() };
    const escaped: string[] = [];
    for (const [variant, hostile] of hostileVariants(valid)) {
      if (variant.endsWith('indexedDB') || variant.endsWith('IDBKeyRange')) continue; // host objects, used as given
      const result = await outcome(() => openMemory(hostile as never));
      if (!(result instanceof ZeromemError) || result.code !== 'INVALID_INPUT') escaped.push(`${variant}: ${result instanceof Error ? `${result.name}: ${result.message}` : String(result)}`);
    }
    expect(escaped).toEqual([]);
    await (await openMemory(valid)).close();
  });
});
