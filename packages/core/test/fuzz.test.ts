import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ZeromemError, type Memory, type MemoryRecord, type Namespace, type RememberManyResult, type RememberResult } from '../src/index.ts';
import { RECORD_FIELDS, fcSeed, openTestMemory } from './helpers.ts';

/**
 * Seeded fuzz: junk for every argument of every verb. Each call must either succeed or
 * reject with a ZeromemError carrying a known code (never a TypeError, a RangeError or a
 * DOMException), and the database must stay consistent afterwards.
 */

const GOOD_NS: Namespace = { userId: 'known-good ✓', agentId: 'keeper' };
const FUZZ_NAMESPACES: Namespace[] = [{ userId: 'f1' }, { userId: 'f1', agentId: 'a' }, { userId: 'f2', scope: 's' }];

const KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'namespace', 'content', 'userId', 'tags', 'metadata', 'any', 'all', 'length', '0', ''];
const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom(...KEYS));

const SPECIALS: unknown[] = [
  Number.NaN,
  -0,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  Number.MAX_VALUE,
  Number.MIN_SAFE_INTEGER,
  8.64e15,
  2 ** 53,
  -1,
  0,
  1,
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\udc00x',
  '😀',
  'x'.repeat(40_000),
  '€'.repeat(11_000),
  'a'.repeat(1_000_000),
  '2x',
  '-1d',
  '1h30m',
  '2026-01-01',
  '9999-12-31T23:59:59Z',
  'u=f1',
  'f1',
  null,
  undefined,
  true,
  [],
  {},
  // eslint-disable-next-line no-sparse-arrays
  [, , 'x'],
  new Array(5),
  Object.create(null),
  JSON.parse('{"__proto__":{"polluted":1}}'),
  JSON.parse('{"constructor":{"prototype":{"polluted":1}}}'),
  new Date(Number.NaN),
  new Date(0),
  new Map([['userId', 'f1']]),
  new Set(['f1']),
  new Uint8Array(4),
  Symbol('s'),
  10n,
  () => 'f1',
  new String('f1'),
  new Number(1),
  [{ userId: 'f1' }],
];
const specials = fc.constantFrom(...SPECIALS);

const anything = fc.anything({
  key,
  maxDepth: 3,
  maxKeys: 5,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
});

const junk: fc.Arbitrary<unknown> = fc.oneof({ weight: 3, arbitrary: anything }, { weight: 2, arbitrary: specials });

const validNs = fc.constantFrom(...FUZZ_NAMESPACES);
/** Mostly a plausible value (so calls get past the first check and write), sometimes junk. */
const maybeJunk = <T,>(plausible: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ weight: 6, arbitrary: plausible }, { weight: 1, arbitrary: junk });
/** Stands for the namespace of the latest record a call wrote. */
const LAST_NS = Object.freeze({ lastNamespace: true });
const nsArg: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(LAST_NS) },
  { weight: 4, arbitrary: validNs },
  { weight: 1, arbitrary: junk },
  { weight: 1, arbitrary: fc.record({ userId: fc.oneof(fc.constantFrom('f1', 'f2'), junk), agentId: junk, scope: junk }, { requiredKeys: ['userId'] }) },
);
/** Stands for the id of the latest record a call wrote (ids are only known at run time). */
const LAST_ID = Object.freeze({ lastId: true });
const idArg: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(LAST_ID) },
  { weight: 3, arbitrary: fc.constantFrom('id1', 'id2', 'x:y') },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 1, arbitrary: junk },
);
/** An object with the `required` fields and `min` to `max` of the others, each plausible or junk. */
function someOf(fields: Record<string, fc.Arbitrary<unknown>>, required: string[], max: number, min = 0): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(fc.record(fields), fc.subarray(Object.keys(fields).filter((f) => !required.includes(f)), { minLength: min, maxLength: max }))
    .map(([all, keep]) => Object.fromEntries([...required, ...keep].map((f) => [f, (all as Record<string, unknown>)[f]])));
}
const tagList = fc.array(fc.constantFrom('t1', 't2', 't3'), { maxLength: 3 });
const jsonObject = fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });

/** Fields of a remember input, each either plausible or junk. */
const rememberInput: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 1, arbitrary: junk },
  {
    weight: 6,
    arbitrary: someOf(
      {
        namespace: nsArg,
        content: maybeJunk(fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), fc.constantFrom('dup', 'dup ', 'DUP', 'café', 'cafe\u0301'))),
        id: idArg,
        source: maybeJunk(fc.constantFrom('user', 'tool', 'memory')),
        layer: maybeJunk(fc.constantFrom('session', 'knowledge')),
        tags: maybeJunk(tagList),
        metadata: maybeJunk(fc.oneof(jsonObject, fc.dictionary(key, junk, { maxKeys: 2 }))),
        importance: maybeJunk(fc.double({ min: 0, max: 1, noNaN: true })),
        createdAt: maybeJunk(fc.oneof(fc.integer({ min: 0, max: Date.UTC(2026, 0, 1) }), fc.date({ noInvalidDate: true }))),
        expiresAt: maybeJunk(fc.integer({ min: Date.UTC(2026, 0, 1) + 1, max: 2 ** 45 })),
        ttl: maybeJunk(fc.constantFrom('1d', '90s', 1000, '1h30m')),
      },
      ['namespace', 'content'],
      3,
    )
      // Sometimes one more field, perhaps a "__proto__" own key as JSON.parse would make it.
      .chain((input) => fc.tuple(fc.constant(input), fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.tuple(key, junk) })))
      .map(([input, extra]) => {
        if (extra) Object.defineProperty(input, extra[0], { value: extra[1], enumerable: true, writable: true, configurable: true });
        return input;
      }),
  },
);
const patchArg: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 1, arbitrary: junk },
  {
    weight: 4,
    arbitrary: someOf(
      {
        content: maybeJunk(fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom('dup', 'DUP'))),
        importance: maybeJunk(fc.double({ min: 0, max: 1, noNaN: true })),
        tags: maybeJunk(tagList),
        metadata: maybeJunk(jsonObject),
        expiresAt: maybeJunk(fc.constantFrom(null, Date.UTC(2030, 0, 1))),
        ttl: maybeJunk(fc.constantFrom('1d', 5000)),
        source: maybeJunk(fc.constantFrom('user', 'assistant')),
        layer: maybeJunk(fc.constantFrom('session', 'knowledge')),
      },
      [],
      2,
      1,
    ),
  },
);
const tagFilter = fc.array(fc.constantFrom('t1', 't2', 't3'), { minLength: 1, maxLength: 2 });
const filterFields = {
  tags: maybeJunk(someOf({ any: maybeJunk(tagFilter), all: maybeJunk(tagFilter) }, [], 2)),
  metadata: maybeJunk(jsonObject),
  source: maybeJunk(fc.constantFrom('user', ['tool', 'user'])),
  layer: maybeJunk(fc.constantFrom('session', ['long_term', 'knowledge'])),
  createdAt: maybeJunk(someOf({ from: maybeJunk(fc.integer({ min: 0, max: 2 ** 45 })), to: maybeJunk(fc.constantFrom(new Date(Date.UTC(2027, 0, 1)), '2026-01-01T00:00:00.005Z')) }, [], 2)),
  updatedAt: maybeJunk(someOf({ from: maybeJunk(fc.constantFrom('2025-06-01', 0)), to: maybeJunk(fc.constant(2 ** 45)) }, [], 2)),
};
const filterArg: fc.Arbitrary<unknown> = fc.oneof({ weight: 1, arbitrary: junk }, { weight: 5, arbitrary: someOf(filterFields, [], 2) });
const listOptionsArg: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 1, arbitrary: junk },
  {
    weight: 5,
    arbitrary: someOf(
      {
        ...filterFields,
        limit: maybeJunk(fc.integer({ min: 0, max: 1001 })),
        order: maybeJunk(fc.constantFrom('asc', 'desc')),
        orderBy: maybeJunk(fc.constantFrom('createdAt', 'updatedAt')),
        cursor: fc.oneof(fc.base64String({ maxLength: 40 }), junk),
      },
      [],
      3,
    ),
  },
);
/** Options of a verb: usually none, sometimes junk, sometimes its own options (plausible or junk). */
const optionsArg = (fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: junk },
    { weight: 2, arbitrary: fc.record(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, maybeJunk(v)])), { requiredKeys: [] }) },
  );
const actor = fc.constantFrom('me', 'agent-1');
const writeOptionsArg = optionsArg({ actor });
const updateOptionsArg = optionsArg({ actor, ifVersion: fc.integer({ min: 1, max: 3 }) });
const manyOptionsArg = optionsArg({ actor, skipInvalid: fc.boolean() });

type Call = { verb: string; args: unknown[] };
const call = (verb: string) => (args: unknown[]): Call => ({ verb, args });
const callArb: fc.Arbitrary<Call> = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(rememberInput, writeOptionsArg).map(call('remember')) },
  { weight: 2, arbitrary: fc.tuple(maybeJunk(fc.array(rememberInput, { maxLength: 4 })), manyOptionsArg).map(call('rememberMany')) },
  { weight: 2, arbitrary: fc.tuple(nsArg, idArg).map(call('get')) },
  { weight: 3, arbitrary: fc.tuple(nsArg, idArg, patchArg, updateOptionsArg).map(call('update')) },
  { weight: 2, arbitrary: fc.tuple(nsArg, listOptionsArg).map(call('list')) },
  { weight: 1, arbitrary: fc.tuple(nsArg, filterArg).map(call('count')) },
  { weight: 1, arbitrary: fc.tuple(nsArg).map(call('stats')) },
  { weight: 1, arbitrary: fc.tuple(nsArg, idArg, writeOptionsArg).map(call('forget')) },
  { weight: 1, arbitrary: fc.tuple(nsArg, filterArg, writeOptionsArg).map(call('forgetWhere')) },
  { weight: 1, arbitrary: fc.tuple(nsArg, writeOptionsArg).map(call('forgetNamespace')) },
  { weight: 1, arbitrary: fc.tuple(maybeJunk(fc.constantFrom('f1', 'f2')), writeOptionsArg).map(call('forgetUser')) },
  { weight: 1, arbitrary: fc.tuple(nsArg, maybeJunk(fc.record({ after: maybeJunk(fc.nat(20)), limit: maybeJunk(fc.integer({ min: 1, max: 5 })) }, { requiredKeys: [] }))).map(call('audit')) },
  { weight: 2, arbitrary: fc.tuple(nsArg, fc.oneof(fc.constant(undefined), listOptionsArg), fc.oneof(fc.constantFrom(() => undefined, { next: () => undefined, error: () => undefined }), junk)).map(call('watch')) },
  { weight: 1, arbitrary: fc.constant<Call>({ verb: 'sweep', args: [] }) },
  { weight: 1, arbitrary: fc.tuple(nsArg, optionsArg({ actor, threshold: fc.constantFrom(0.5, 0.8, 1), dryRun: fc.boolean() })).map(call('consolidate')) },
  { weight: 1, arbitrary: fc.tuple(optionsArg({ namespace: nsArg })).map(call('retier')) },
  { weight: 1, arbitrary: fc.tuple(nsArg, maybeJunk(fc.array(idArg, { minLength: 1, maxLength: 3 }))).map(call('markUsed')) },
  { weight: 1, arbitrary: fc.tuple(maybeJunk(fc.oneof(fc.record({ namespace: nsArg }), fc.record({ userId: fc.constantFrom('f1', 'f2') }))), optionsArg({ vectors: fc.boolean() })).map(call('exportJsonl')) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(maybeJunk(fc.oneof(fc.string({ maxLength: 30 }), fc.array(fc.oneof(fc.json(), fc.string({ maxLength: 20 })), { maxLength: 4 }))), optionsArg({ actor, skipInvalid: fc.boolean() }))
      .map(call('importJsonl')),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        nsArg,
        maybeJunk(fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('dup', 'seed', 'valid content'))),
        fc.oneof(fc.constant(undefined), someOf({ k: maybeJunk(fc.integer({ min: 0, max: 1001 })), filters: filterArg, layers: maybeJunk(fc.constantFrom(['session'], ['long_term', 'knowledge'])), now: maybeJunk(fc.integer({ min: 0, max: 2 ** 45 })), weights: maybeJunk(fc.constantFrom({ text: 1 }, { vector: 0, text: 2 })), trackAccess: maybeJunk(fc.boolean()) }, [], 3), junk),
      )
      .map(call('recall')),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.oneof(
          { weight: 1, arbitrary: junk },
          {
            weight: 5,
            arbitrary: someOf(
              {
                namespace: nsArg,
                query: maybeJunk(fc.oneof(fc.string({ maxLength: 20 }), fc.constant([{ role: 'user', content: 'dup' }]))),
                budget: maybeJunk(fc.integer({ min: -5, max: 3000 })),
                system: maybeJunk(fc.oneof(fc.string({ maxLength: 30 }), fc.array(fc.string({ maxLength: 10 }), { maxLength: 2 }))),
                layers: maybeJunk(someOf({ system: maybeJunk(fc.record({ maxTokens: maybeJunk(fc.nat(50)) })), session: maybeJunk(fc.oneof(fc.constant(false), fc.record({ maxItems: maybeJunk(fc.nat(5)), maxTokens: maybeJunk(fc.nat(300)) }, { requiredKeys: [] }))), long_term: maybeJunk(fc.record({ maxItems: maybeJunk(fc.nat(5)), namespace: nsArg }, { requiredKeys: [] })), knowledge: maybeJunk(fc.constant(false)) }, [], 3)),
                maxItemTokens: maybeJunk(fc.integer({ min: 0, max: 40 })),
                sessionId: maybeJunk(fc.constantFrom('s1', 's2')),
                now: maybeJunk(fc.integer({ min: 0, max: 2 ** 45 })),
                fullHistory: maybeJunk(fc.boolean()),
                trackAccess: maybeJunk(fc.boolean()),
              },
              ['namespace'],
              4,
            ),
          },
        ),
      )
      .map(call('buildContext')),
  },
);

interface RunState {
  lastId: string;
  lastNs: Namespace;
}

/** Replaces the LAST_ID / LAST_NS stand-ins, also inside remember inputs and batches. */
function resolve(value: unknown, state: RunState, depth: number): unknown {
  if (value === LAST_ID) return state.lastId;
  if (value === LAST_NS) return state.lastNs;
  if (depth === 0 || typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) return value.map((item) => resolve(item, state, depth - 1));
  if (Object.hasOwn(value, 'namespace') && (value as { namespace: unknown }).namespace === LAST_NS) {
    // A copy: fast-check may replay the generated value while shrinking.
    const copy = Object.defineProperties(Object.create(Object.getPrototypeOf(value) as object | null) as object, Object.getOwnPropertyDescriptors(value));
    Object.defineProperty(copy, 'namespace', { value: state.lastNs, enumerable: true, writable: true, configurable: true });
    return copy;
  }
  return value;
}

/** Runs one call; returns the error it failed with, or undefined. `state` follows the writes. */
async function invoke(memory: Memory, call: Call, state: RunState = { lastId: 'none', lastNs: FUZZ_NAMESPACES[0]! }): Promise<unknown> {
  try {
    const method = (memory as unknown as Record<string, (...args: unknown[]) => unknown>)[call.verb]!;
    const args = call.args.map((arg) => resolve(arg, state, 2));
    const result = method.apply(memory, args);
    if (call.verb === 'watch') (result as () => void)();
    else {
      const value = await result;
      const written = call.verb === 'remember' ? (value as RememberResult) : call.verb === 'rememberMany' ? (value as RememberManyResult).results.at(-1) : undefined;
      if (written) {
        state.lastId = written.id;
        state.lastNs = written.record.namespace;
      }
    }
    return undefined;
  } catch (err) {
    return err;
  }
}

function expectPublicShape(record: MemoryRecord): void {
  expect(Object.keys(record).sort()).toEqual([...RECORD_FIELDS]);
  expect(typeof record.id).toBe('string');
  expect(typeof record.content).toBe('string');
  expect(record.content.trim()).not.toBe('');
  expect(Array.isArray(record.tags) && record.tags.every((t) => typeof t === 'string' && t.trim() === t && t !== '')).toBe(true);
  expect(Object.getPrototypeOf(record.metadata)).toBe(Object.prototype);
  expect(JSON.parse(JSON.stringify(record.metadata))).toEqual(record.metadata);
  expect(record.importance).toBeGreaterThanOrEqual(0);
  expect(record.importance).toBeLessThanOrEqual(1);
  expect(Number.isInteger(record.createdAt) && Number.isInteger(record.updatedAt)).toBe(true);
  expect(record.version).toBeGreaterThanOrEqual(1);
}

async function listAll(memory: Memory, namespace: Namespace): Promise<MemoryRecord[]> {
  const items: MemoryRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await memory.list(namespace, { limit: 7, ...(cursor ? { cursor } : {}) });
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

/** A failed call must be a coded caller error. */
function expectCallerError(call: Call, err: unknown): void {
  if (err === undefined) return;
  if (!(err instanceof ZeromemError)) throw new Error(`${call.verb} threw ${String(err)} (not a ZeromemError)`, { cause: err });
  expect(ERROR_CODES).toContain(err.code);
  expect(['STORAGE_FAILED', 'CLOSED'], err.message).not.toContain(err.code); // junk input is a caller error, not a storage failure
  expect(typeof err.message).toBe('string');
}

const GOOD_INPUT = { namespace: GOOD_NS, id: 'keep', content: 'known good', tags: ['t1'], metadata: { a: [1, { b: null }] }, importance: 0.7 };

/** A record without its access statistics, which recall raises in the background (and a read of a cold record re-warms). */
function withoutAccess(record: MemoryRecord | undefined): Omit<MemoryRecord, 'accessCount' | 'lastAccessedAt' | 'tier'> | undefined {
  if (!record) return record;
  const { accessCount: _count, lastAccessedAt: _last, tier: _tier, ...rest } = record;
  return rest;
}

/** The known-good record is intact, reads agree with each other, and every record has the public shape. */
async function expectConsistent(memory: Memory, good: MemoryRecord): Promise<void> {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('polluted');
  expect(await memory.get(GOOD_NS, 'keep')).toEqual(good);
  expect(await memory.count(GOOD_NS)).toBe(1);
  for (const namespace of [...FUZZ_NAMESPACES, GOOD_NS]) {
    const items = await listAll(memory, namespace);
    expect(new Set(items.map((r) => r.id)).size).toBe(items.length);
    expect(await memory.count(namespace)).toBe(items.length);
    expect((await memory.stats(namespace)).count).toBe(items.length);
    for (const record of items) {
      expectPublicShape(record);
      expect(record.namespace).toEqual(namespace);
      expect(withoutAccess(await memory.get(namespace, record.id))).toEqual(withoutAccess(record));
    }
  }
}

/** A valid argument list for each verb (LAST_ID / LAST_NS are filled in at run time). */
const VALID_ARGS: Record<string, unknown[]> = {
  remember: [{ namespace: LAST_NS, content: 'valid content', tags: ['t1'] }, { actor: 'me' }],
  rememberMany: [[{ namespace: LAST_NS, content: 'batch one' }, { namespace: LAST_NS, content: 'batch two' }], { skipInvalid: false }],
  get: [LAST_NS, LAST_ID],
  update: [LAST_NS, LAST_ID, { importance: 0.9 }, { actor: 'me' }],
  list: [LAST_NS, { limit: 5, tags: { any: ['t1'] } }],
  count: [LAST_NS, { source: 'user' }],
  stats: [LAST_NS],
  forget: [LAST_NS, LAST_ID, { actor: 'me' }],
  forgetWhere: [LAST_NS, { tags: { all: ['t1'] } }, { actor: 'me' }],
  forgetNamespace: [LAST_NS, { actor: 'me' }],
  forgetUser: ['f1', { actor: 'me' }],
  audit: [LAST_NS, { after: 0, limit: 10 }],
  watch: [LAST_NS, { limit: 3 }, () => undefined],
  recall: [LAST_NS, 'seed record content', { k: 5, filters: { tags: { any: ['t1'] } }, trackAccess: true, includeCold: true }],
  consolidate: [LAST_NS, { threshold: 0.9, dryRun: true, actor: 'me' }],
  retier: [{ namespace: LAST_NS }],
  markUsed: [LAST_NS, [LAST_ID]],
  exportJsonl: [{ namespace: LAST_NS }, { vectors: false }],
  importJsonl: ['{"format":"zeromem-export","version":1,"exportedAt":0,"scope":{"userId":"f1"},"records":0,"vectors":null}\n', { skipInvalid: true, actor: 'me' }],
};
/** The fields of the first argument that get junk one at a time too. */
const FIELDS: Record<string, string[]> = {
  remember: ['namespace', 'content', 'id', 'source', 'layer', 'tags', 'metadata', 'importance', 'createdAt', 'expiresAt', 'ttl', '__proto__', 'constructor'],
};

/** A valid call with exactly one argument (or one field of a remember input) replaced by junk. */
const oneJunkCall: fc.Arbitrary<Call> = fc
  .tuple(fc.constantFrom(...Object.keys(VALID_ARGS)), fc.nat(), fc.nat(), junk)
  .map(([verb, argPick, fieldPick, value]) => {
    const args = [...VALID_ARGS[verb]!];
    const fields = FIELDS[verb];
    const position = argPick % (args.length + (fields ? 1 : 0));
    if (fields && position === args.length) {
      const input = { ...(args[0] as Record<string, unknown>) };
      Object.defineProperty(input, fields[fieldPick % fields.length]!, { value, enumerable: true, writable: true, configurable: true });
      args[0] = input;
    } else args[position] = value;
    return { verb, args };
  });

describe('fuzz: junk into every verb', () => {
  it('one junk argument at a time: every verb, every argument, never anything but a coded ZeromemError', async () => {
    const seed = fcSeed('fuzz, one junk argument');
    await fc.assert(
      fc.asyncProperty(fc.array(oneJunkCall, { minLength: 10, maxLength: 40 }), async (calls) => {
        const { memory } = await openTestMemory();
        try {
          const good = await memory.remember(GOOD_INPUT);
          const state: RunState = { lastId: 'none', lastNs: FUZZ_NAMESPACES[0]! };
          // Something to read, update and forget in the namespace the valid arguments name.
          await invoke(memory, { verb: 'remember', args: [{ namespace: FUZZ_NAMESPACES[0], content: 'seed record', tags: ['t1'] }] }, state);
          for (const call of calls) expectCallerError(call, await invoke(memory, call, state));
          await expectConsistent(memory, good.record);
        } finally {
          await memory.close();
        }
      }),
      { seed, numRuns: 60 },
    );
  });

  it('every special value in every argument and every remember field (exhaustive)', async () => {
    const { memory } = await openTestMemory();
    try {
      const good = await memory.remember(GOOD_INPUT);
      const state: RunState = { lastId: 'none', lastNs: FUZZ_NAMESPACES[0]! };
      let calls = 0;
      for (const [verb, valid] of Object.entries(VALID_ARGS)) {
        const variants: Array<(value: unknown) => unknown[]> = valid.map((_, position) => (value) => valid.map((arg, i) => (i === position ? value : arg)));
        for (const field of FIELDS[verb] ?? []) {
          variants.push((value) => [Object.defineProperty({ ...(valid[0] as object) }, field, { value, enumerable: true, writable: true, configurable: true }), ...valid.slice(1)]);
        }
        for (const variant of variants) {
          for (const value of SPECIALS) {
            // Keep a record to act on in the namespace the valid arguments name.
            if (!(await memory.get(state.lastNs, state.lastId))) {
              await invoke(memory, { verb: 'remember', args: [{ namespace: FUZZ_NAMESPACES[0], content: `seed record ${calls}`, tags: ['t1'] }] }, state);
            }
            const call = { verb, args: variant(value) };
            expectCallerError(call, await invoke(memory, call, state));
            calls++;
          }
        }
      }
      expect(calls).toBeGreaterThan(1500);
      await expectConsistent(memory, good.record);
    } finally {
      await memory.close();
    }
  });

  it('junk everywhere at once: every call succeeds or fails with a coded ZeromemError, and the database stays consistent', async () => {
    const seed = fcSeed('fuzz, junk everywhere');
    await fc.assert(
      fc.asyncProperty(fc.array(callArb, { minLength: 5, maxLength: 40 }), async (calls) => {
        const { memory } = await openTestMemory();
        try {
          const good = await memory.remember(GOOD_INPUT);
          const state: RunState = { lastId: 'none', lastNs: FUZZ_NAMESPACES[0]! };
          for (const call of calls) expectCallerError(call, await invoke(memory, call, state));
          await expectConsistent(memory, good.record);
        } finally {
          await memory.close();
        }
      }),
      { seed, numRuns: 100 },
    );
  });

  it('after close(), every verb fails with CLOSED (or its input error), never anything else', async () => {
    const { memory } = await openTestMemory();
    await memory.remember({ namespace: { userId: 'f1' }, id: 'x', content: 'x' });
    const exported = await memory.exportJsonl({ userId: 'f1' });
    await memory.close();
    const ns = { userId: 'f1' };
    const calls: Call[] = [
      { verb: 'remember', args: [{ namespace: ns, content: 'y' }] },
      { verb: 'rememberMany', args: [[{ namespace: ns, content: 'y' }]] },
      { verb: 'get', args: [ns, 'x'] },
      { verb: 'update', args: [ns, 'x', { importance: 1 }] },
      { verb: 'list', args: [ns] },
      { verb: 'count', args: [ns] },
      { verb: 'stats', args: [ns] },
      { verb: 'forget', args: [ns, 'x'] },
      { verb: 'forgetWhere', args: [ns, { source: 'user' }] },
      { verb: 'forgetNamespace', args: [ns] },
      { verb: 'forgetUser', args: ['f1'] },
      { verb: 'audit', args: [ns] },
      { verb: 'sweep', args: [] },
      { verb: 'recall', args: [ns, 'x'] },
      { verb: 'consolidate', args: [ns] },
      { verb: 'retier', args: [] },
      { verb: 'markUsed', args: [ns, ['x']] },
      { verb: 'exportJsonl', args: [{ namespace: ns }] },
      { verb: 'importJsonl', args: [exported] },
    ];
    for (const call of calls) {
      const err = await invoke(memory, call);
      expect(err, call.verb).toBeInstanceOf(ZeromemError);
      expect((err as ZeromemError).code, call.verb).toBe('CLOSED');
    }
    expect(((await invoke(memory, { verb: 'get', args: [ns, 'bad id'] })) as ZeromemError).code).toBe('INVALID_INPUT');
  });
});
