import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZeromemError, namespaceKey, normalizeContent, type Memory, type MemoryRecord, type Namespace } from '../src/index.ts';
import { fcSeed, openTestMemory } from './helpers.ts';

/**
 * Model-based isolation property: random sequences of writes and reads over many
 * namespaces, checked step by step against an in-memory model. Any record of another
 * namespace showing up in a read, a wrong count, or a forget that reaches too far fails.
 */

// userIds that are prefixes of each other, that look like encoded keys or key syntax,
// and the same letter in NFC and NFD (different users: ids are compared exactly).
const USERS = ['a', 'ab', 'a;a=b', '%', '%25', 'u=a', 'ü', 'u\u0308', '日本'];
const AGENTS = [undefined, 'x', 'x;s=y', 'b'];
const SCOPES = [undefined, 's', 'a=b', 'y', 'x'];
const ALL_NAMESPACES: Namespace[] = USERS.flatMap((userId) =>
  AGENTS.flatMap((agentId) =>
    SCOPES.map((scope) => ({ userId, ...(agentId === undefined ? {} : { agentId }), ...(scope === undefined ? {} : { scope }) })),
  ),
);
/**
 * Pairs that a careless key scheme would merge (no encoding, prefix matching, a separator
 * inside a value, agent vs scope, NFC vs NFD). Runs mostly use a few such pairs, so both
 * sides of a confusion are written and read in one run.
 */
const CONFUSABLE: Namespace[][] = [
  [{ userId: 'a' }, { userId: 'ab' }],
  [{ userId: 'a;a=b' }, { userId: 'a', agentId: 'b' }],
  [{ userId: 'a', agentId: 'x;s=y' }, { userId: 'a', agentId: 'x', scope: 'y' }],
  [{ userId: 'a', agentId: 'x' }, { userId: 'a', scope: 'x' }],
  [{ userId: '%' }, { userId: '%25' }],
  [{ userId: 'u=a' }, { userId: 'a' }],
  [{ userId: 'ü' }, { userId: 'u\u0308' }],
  [{ userId: '日本', agentId: 'b', scope: 'a=b' }, { userId: '日本', agentId: 'b' }],
];

// Contents that collide after normalization ("café" NFC/NFD, folded spaces), and the same
// content that every namespace gets.
const CONTENTS = ['same everywhere', 'café', 'cafe\u0301', 'x  y', 'x y', 'X Y', 'a;a=b', '%', 'ü', 'emoji 😀'];
const CALLER_IDS = [undefined, undefined, 'id1', 'id:2', 'a.b-c_d'];
const TAGS = ['t1', 't2', 't3'];

type Op =
  | { kind: 'remember'; ns: number; content: number; id: number; tags: string[] }
  | { kind: 'rememberMany'; ns: number[]; content: number[] }
  | { kind: 'update'; ns: number; ref: number; content: number }
  | { kind: 'forget'; ns: number; ref: number }
  | { kind: 'get'; ns: number; ref: number }
  | { kind: 'list'; ns: number; pageSize: number; tag: string | undefined; order: 'asc' | 'desc' }
  | { kind: 'count'; ns: number; tag: string | undefined }
  | { kind: 'forgetNamespace'; ns: number }
  | { kind: 'forgetUser'; ns: number };

const ns = fc.nat(31);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('remember' as const), ns, content: fc.nat(CONTENTS.length - 1), id: fc.nat(CALLER_IDS.length - 1), tags: fc.subarray(TAGS) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rememberMany' as const), ns: fc.array(ns, { minLength: 1, maxLength: 6 }), content: fc.array(fc.nat(CONTENTS.length - 1), { minLength: 6, maxLength: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('update' as const), ns, ref: fc.nat(), content: fc.nat(CONTENTS.length - 1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('forget' as const), ns, ref: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('get' as const), ns, ref: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('list' as const), ns, pageSize: fc.integer({ min: 1, max: 4 }), tag: fc.option(fc.constantFrom(...TAGS), { nil: undefined }), order: fc.constantFrom('asc' as const, 'desc' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('count' as const), ns, tag: fc.option(fc.constantFrom(...TAGS), { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forgetNamespace' as const), ns }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forgetUser' as const), ns }) },
);

interface ModelRecord {
  id: string;
  norm: string;
  content: string;
  tags: string[];
  createdAt: number;
}

/** The expected state: namespace key -> id -> record. */
class Model {
  readonly byNs = new Map<string, Map<string, ModelRecord>>();
  readonly namespaces = new Map<string, Namespace>();
  records(key: string): Map<string, ModelRecord> {
    let records = this.byNs.get(key);
    if (!records) this.byNs.set(key, (records = new Map()));
    return records;
  }
  /** The records of a namespace, remembering the namespace (for forgetUser). */
  of(namespace: Namespace): Map<string, ModelRecord> {
    const key = namespaceKey(namespace);
    this.namespaces.set(key, namespace);
    return this.records(key);
  }
  findByContent(key: string, norm: string): ModelRecord | undefined {
    for (const record of this.records(key).values()) if (record.norm === norm) return record;
    return undefined;
  }
}

async function allPages(memory: Memory, namespace: Namespace, pageSize: number, tag: string | undefined, order: 'asc' | 'desc'): Promise<MemoryRecord[]> {
  const items: MemoryRecord[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 200; pages++) {
    const page = await memory.list(namespace, { limit: pageSize, order, ...(tag ? { tags: { any: [tag] } } : {}), ...(cursor ? { cursor } : {}) });
    expect(page.items.length).toBeLessThanOrEqual(pageSize);
    items.push(...page.items);
    if (page.nextCursor === null) return items;
    expect(page.items.length).toBe(pageSize);
    cursor = page.nextCursor;
  }
  throw new Error('list did not end');
}

function expectInNamespace(record: MemoryRecord, namespace: Namespace): void {
  expect(record.namespace).toEqual(namespace);
  expect(record.namespaceKey).toBe(namespaceKey(namespace));
}

/** Checks every read of one namespace against the model. */
async function checkNamespace(memory: Memory, model: Model, namespace: Namespace): Promise<void> {
  const key = namespaceKey(namespace);
  const expected = [...model.records(key).values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  const listed = await allPages(memory, namespace, 3, undefined, 'asc');
  for (const record of listed) expectInNamespace(record, namespace);
  expect(listed.map((r) => r.id)).toEqual(expected.map((r) => r.id));
  expect(listed.map((r) => r.content)).toEqual(expected.map((r) => r.content));
  expect(await memory.count(namespace)).toBe(expected.length);
  expect((await memory.stats(namespace)).count).toBe(expected.length);
}

async function runOps(memory: Memory, clock: { advance(ms: number): void }, nsPool: Namespace[], ops: Op[]): Promise<void> {
  const model = new Model();
  const seenIds: string[] = []; // every id ever returned, from any namespace: probes for cross-namespace reads
  const pick = (i: number) => nsPool[i % nsPool.length]!;
  const ref = (i: number) => (seenIds.length ? seenIds[i % seenIds.length]! : 'never-used');

  for (const op of ops) {
    clock.advance(1 + (op.kind === 'remember' ? 0 : 1)); // distinct times; some equal-time ties via rememberMany
    switch (op.kind) {
      case 'remember': {
        const namespace = pick(op.ns);
        const key = namespaceKey(namespace);
        const content = CONTENTS[op.content]!;
        const callerId = CALLER_IDS[op.id];
        const norm = normalizeContent(content);
        const holder = callerId === undefined ? undefined : model.records(key).get(callerId);
        const twin = model.findByContent(key, norm);
        const attempt = memory.remember({ namespace, content, tags: op.tags, ...(callerId ? { id: callerId } : {}) });
        if (holder && holder.norm !== norm) {
          const err = await attempt.catch((e: unknown) => e);
          expect(err).toBeInstanceOf(ZeromemError);
          expect((err as ZeromemError).code).toBe('CONFLICT');
          break;
        }
        const result = await attempt;
        expectInNamespace(result.record, namespace);
        const existing = holder ?? twin;
        if (existing) {
          expect(result).toMatchObject({ id: existing.id, deduplicated: true });
          expect(result.record.content).toBe(existing.content);
        } else {
          expect(result.deduplicated).toBe(false);
          if (callerId) expect(result.id).toBe(callerId);
          model.of(namespace).set(result.id, { id: result.id, norm, content, tags: [...op.tags], createdAt: result.record.createdAt });
          seenIds.push(result.id);
        }
        break;
      }
      case 'rememberMany': {
        const inputs = op.ns.map((n, i) => ({ namespace: pick(n), content: CONTENTS[op.content[i]!]! }));
        const { results, failures } = await memory.rememberMany(inputs);
        expect(failures).toEqual([]);
        expect(results).toHaveLength(inputs.length);
        for (const [i, result] of results.entries()) {
          const namespace = inputs[i]!.namespace;
          const key = namespaceKey(namespace);
          expectInNamespace(result.record, namespace);
          const twin = model.findByContent(key, normalizeContent(inputs[i]!.content));
          if (twin) expect(result).toMatchObject({ id: twin.id, deduplicated: true });
          else {
            expect(result.deduplicated).toBe(false);
            const content = inputs[i]!.content;
            model.of(namespace).set(result.id, { id: result.id, norm: normalizeContent(content), content, tags: [], createdAt: result.record.createdAt });
            seenIds.push(result.id);
          }
        }
        break;
      }
      case 'update': {
        const namespace = pick(op.ns);
        const key = namespaceKey(namespace);
        const id = ref(op.ref);
        const content = CONTENTS[op.content]!;
        const norm = normalizeContent(content);
        const target = model.records(key).get(id);
        const twin = model.findByContent(key, norm);
        const outcome = await memory.update(namespace, id, { content }).catch((e: unknown) => e);
        if (!target) {
          expect((outcome as ZeromemError).code).toBe('NOT_FOUND');
        } else if (twin && twin.id !== id) {
          expect((outcome as ZeromemError).code).toBe('CONFLICT');
          expect((outcome as ZeromemError).details.existingId).toBe(twin.id);
        } else {
          const record = outcome as MemoryRecord;
          expectInNamespace(record, namespace);
          expect(record).toMatchObject({ id, content });
          target.content = content;
          target.norm = norm;
        }
        break;
      }
      case 'forget': {
        const namespace = pick(op.ns);
        const key = namespaceKey(namespace);
        const id = ref(op.ref);
        expect(await memory.forget(namespace, id)).toBe(model.records(key).has(id));
        model.records(key).delete(id);
        break;
      }
      case 'get': {
        const namespace = pick(op.ns);
        const id = ref(op.ref);
        const expected = model.records(namespaceKey(namespace)).get(id);
        const record = await memory.get(namespace, id);
        if (!expected) expect(record).toBeUndefined();
        else {
          expect(record).toBeDefined();
          expectInNamespace(record!, namespace);
          expect(record!.content).toBe(expected.content);
        }
        break;
      }
      case 'list': {
        const namespace = pick(op.ns);
        const expected = [...model.records(namespaceKey(namespace)).values()]
          .filter((r) => op.tag === undefined || r.tags.includes(op.tag))
          .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
        if (op.order === 'desc') expected.reverse();
        const listed = await allPages(memory, namespace, op.pageSize, op.tag, op.order);
        for (const record of listed) expectInNamespace(record, namespace);
        expect(listed.map((r) => r.id)).toEqual(expected.map((r) => r.id));
        break;
      }
      case 'count': {
        const namespace = pick(op.ns);
        const expected = [...model.records(namespaceKey(namespace)).values()].filter((r) => op.tag === undefined || r.tags.includes(op.tag));
        expect(await memory.count(namespace, op.tag ? { tags: { any: [op.tag] } } : undefined)).toBe(expected.length);
        break;
      }
      case 'forgetNamespace': {
        const namespace = pick(op.ns);
        const key = namespaceKey(namespace);
        expect(await memory.forgetNamespace(namespace)).toBe(model.records(key).size);
        model.records(key).clear();
        break;
      }
      case 'forgetUser': {
        const { userId } = pick(op.ns);
        let expected = 0;
        for (const namespace of [...model.namespaces.values()].filter((n) => n.userId === userId)) {
          const records = model.records(namespaceKey(namespace));
          expected += records.size;
          records.clear();
        }
        expect(await memory.forgetUser(userId)).toBe(expected);
        break;
      }
    }
  }
  // The run's namespaces agree with the model in every read; every other namespace there
  // is (never named by the run) is empty.
  for (const namespace of nsPool) await checkNamespace(memory, model, namespace);
  for (const namespace of ALL_NAMESPACES) {
    if (nsPool.some((n) => namespaceKey(n) === namespaceKey(namespace))) continue;
    else expect(await memory.count(namespace)).toBe(model.records(namespaceKey(namespace)).size);
  }
}

describe('namespace isolation (seeded, model-based)', () => {
  it('no read ever returns another namespace, and forgets remove exactly their namespace or user', async () => {
    const seed = fcSeed('namespace isolation');
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 3, arbitrary: fc.uniqueArray(fc.constantFrom(...CONFUSABLE), { minLength: 1, maxLength: 3 }).map((pairs) => pairs.flat()) },
          { weight: 1, arbitrary: fc.uniqueArray(fc.constantFrom(...ALL_NAMESPACES), { minLength: 2, maxLength: 6, selector: (n) => namespaceKey(n) }) },
        ),
        fc.array(opArb, { minLength: 1, maxLength: 60 }),
        async (nsPool, ops) => {
          const { memory, clock } = await openTestMemory();
          try {
            await runOps(memory, clock, nsPool, ops);
          } finally {
            memory.close();
          }
        },
      ),
      { seed, numRuns: 60 },
    );
  });

  it('namespace keys are distinct for every namespace used (no two resolve to one key)', () => {
    const keys = new Set(ALL_NAMESPACES.map(namespaceKey));
    expect(keys.size).toBe(ALL_NAMESPACES.length);
    for (const [x, y] of CONFUSABLE) expect(namespaceKey(x!)).not.toBe(namespaceKey(y!));
    expect(namespaceKey({ userId: 'a', agentId: 'b' })).not.toBe(namespaceKey({ userId: 'a;a=b' }));
    expect(namespaceKey({ userId: 'a', scope: 'b' })).not.toBe(namespaceKey({ userId: 'a', agentId: 'b' }));
  });

  it('a fixed scenario: same content and caller id in namespaces that look alike stay apart', async () => {
    const { memory } = await openTestMemory();
    const spaces: Namespace[] = [{ userId: 'a' }, { userId: 'ab' }, { userId: 'a', agentId: 'b' }, { userId: 'a;a=b' }, { userId: 'a', scope: 'b' }, { userId: '%' }, { userId: '%25' }];
    for (const namespace of spaces) {
      const { record, deduplicated } = await memory.remember({ namespace, id: 'shared', content: 'same everywhere' });
      expect(deduplicated).toBe(false);
      expectInNamespace(record, namespace);
    }
    for (const namespace of spaces) {
      expect(await memory.count(namespace)).toBe(1);
      expectInNamespace((await memory.get(namespace, 'shared'))!, namespace);
      const page = await memory.list(namespace);
      expect(page.items).toHaveLength(1);
      expectInNamespace(page.items[0]!, namespace);
    }
    expect(await memory.forgetNamespace({ userId: 'a' })).toBe(1);
    expect(await memory.forgetUser('a')).toBe(2); // { a, agentId b } and { a, scope b }
    for (const namespace of spaces.filter((n) => n.userId !== 'a')) expect(await memory.count(namespace)).toBe(1);
  });
});
