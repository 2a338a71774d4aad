import { IDBCursor, IDBIndex, IDBObjectStore } from 'fake-indexeddb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenizer, namespaceKey, openMemory, type Layer, type Memory, type MemoryRecord, type Namespace, type Tokenizer } from '../src/index.ts';
import { HistoryCounts } from '../src/context/history-counts.ts';
import { memoryInternals } from '../src/test-hooks.ts';
import { fakeClock, fcSeed, openMemoryAt, openTestMemory } from './helpers.ts';

/**
 * Regression: buildContext slowed down with the namespace (1.4 s at 1,000 records, 11.4 s
 * at 3,000 on fake-indexeddb): the session layer's list filtered by layer in JavaScript,
 * walking every record when few are session turns, and the full-history count read and
 * counted every record on every build. These tests pin what is read (rows fetched from
 * IndexedDB, counted deterministically), not how long it takes.
 */

let rowsRead = 0;
const restore: Array<() => void> = [];
/** Counts every record value IndexedDB hands out: cursor steps, gets and getAll results. */
function countReads(): void {
  const wrap = <T extends object>(proto: T, name: string, counted: (result: unknown, args: unknown[]) => number, after = true) => {
    const original = (proto as Record<string, (...args: unknown[]) => unknown>)[name]!;
    (proto as Record<string, unknown>)[name] = function (this: unknown, ...args: unknown[]) {
      const request = original.apply(this, args) as IDBRequest | undefined;
      if (after && request) request.addEventListener('success', () => (rowsRead += counted(request.result, args)));
      else rowsRead += counted(undefined, args);
      return request;
    };
    restore.push(() => ((proto as Record<string, unknown>)[name] = original));
  };
  for (const proto of [IDBObjectStore.prototype, IDBIndex.prototype]) {
    wrap(proto, 'get', (result) => (result === undefined ? 0 : 1));
    wrap(proto, 'getAll', (result) => (result as unknown[]).length);
    wrap(proto, 'openCursor', (result) => (result ? 1 : 0));
  }
  wrap(IDBCursor.prototype, 'continue', () => 1, false);
  wrap(IDBCursor.prototype, 'advance', (_r, args) => Number(args[0]), false);
}
beforeAll(countReads);
afterAll(() => restore.forEach((undo) => undo()));

async function reads(work: () => Promise<unknown>): Promise<number> {
  const before = rowsRead;
  await work();
  return rowsRead - before;
}

const ns = { userId: 'u1', agentId: 'support' };
const OTHER_RECORDS = 600;

async function largeNamespace() {
  const t = await openTestMemory({ indexSnapshots: false });
  await t.memory.rememberMany(Array.from({ length: OTHER_RECORDS }, (_, i) => ({ namespace: ns, content: `Long-term note ${i} about order ${10_000 + i}`, layer: i % 5 === 0 ? ('knowledge' as const) : ('long_term' as const) })));
  const session = t.memory.session({ namespace: ns, id: 's1' });
  for (const turn of ['My charging port is loose', 'Since when?', 'Since last week']) await session.addTurn('user', turn);
  return { ...t, session };
}

describe('the context read path reads by index, not the whole namespace', () => {
  it('a session-layer list reads only session rows (regression: it walked all 600 other records)', async () => {
    const { memory } = await largeNamespace();
    let page;
    const read = await reads(async () => (page = await memory.list(ns, { layer: 'session', orderBy: 'updatedAt', order: 'desc', limit: 10 })));
    expect(page!.items.map((r: MemoryRecord) => r.content)).toEqual(['Since last week', 'Since when?', 'My charging port is loose']);
    expect(read).toBeLessThan(20);
    // Every order and a cursor still work on the index.
    const asc = await memory.list(ns, { layer: 'session', orderBy: 'createdAt', order: 'asc', limit: 2 });
    expect(asc.items.map((r) => r.content)).toEqual(['My charging port is loose', 'Since when?']);
    const rest = await memory.list(ns, { layer: 'session', orderBy: 'createdAt', order: 'asc', limit: 2, cursor: asc.nextCursor! });
    expect(rest.items.map((r) => r.content)).toEqual(['Since last week']);
  }, 120_000);

  it('a build after one new turn reads only that change for the full-history count (regression: every build read every record)', async () => {
    const { memory, session } = await largeNamespace();
    const first = await memory.buildContext({ namespace: ns, query: 'charging port', budget: 300, sessionId: 's1' });
    await session.addTurn('assistant', 'Please try another cable');
    let second;
    const read = await reads(async () => (second = await memory.buildContext({ namespace: ns, query: 'charging port', budget: 300, sessionId: 's1' })));
    expect(read).toBeLessThan(100);
    const tokenizer = await memory.tokenizer();
    expect(second!.report.fullHistoryTokens).toBe(first.report.fullHistoryTokens! + tokenizer.count('assistant: Please try another cable\n'));
    expect(second!.report.fullHistoryTokens).toBe(await independentFullHistory(memory, tokenizer, ns, 's1'));
  }, 120_000);
});

describe('the full-history counts are bounded', () => {
  it('beyond the bound the least recently read namespaces are dropped, and counted again when read again', async () => {
    const t = await openTestMemory();
    const namespaces = ['a', 'b', 'c'].map((userId) => ({ userId }));
    for (const namespace of namespaces) await t.memory.remember({ namespace, content: `Prefers phone calls (${namespace.userId})` });
    const counts = new HistoryCounts(memoryInternals.get(t.memory)!.store, t.clock, 2);
    const tokenizer = await t.memory.tokenizer();
    const tallies = [];
    for (const namespace of namespaces) tallies.push((await counts.read(namespaceKey(namespace), tokenizer))('long_term'));
    expect([...(await counts.countedIds()).keys()]).toEqual(['u=b', 'u=c']);
    expect((await counts.read('u=a', tokenizer))('long_term')).toEqual(tallies[0]);
    expect(tallies.map((tally) => tally.items)).toEqual([1, 1, 1]);
  });
});

/** The full-history figure counted from scratch: every live record of each layer, one line each, with its header. */
async function independentFullHistory(memory: Memory, tokenizer: Tokenizer, namespace: Namespace, sessionId?: string): Promise<number> {
  const all: MemoryRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await memory.list(namespace, { limit: 1000, ...(cursor ? { cursor } : {}) });
    all.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  const sections: Array<[Layer, string, (r: MemoryRecord) => string]> = [
    ['session', '## Conversation', (r) => `${r.source === 'memory' ? 'user' : r.source}: ${r.content}`],
    ['long_term', '## Long-term memory', (r) => `- ${r.content}`],
    ['knowledge', '## Knowledge', (r) => `- ${r.content}`],
  ];
  let total = 0;
  for (const [layer, header, line] of sections) {
    const records = all.filter((r) => r.layer === layer && (layer !== 'session' || sessionId === undefined || r.metadata.session === sessionId));
    if (records.length) total += tokenizer.count(`${header}\n`) + records.reduce((sum, r) => sum + tokenizer.count(`${line(r)}\n`), 0) + 1;
  }
  return total;
}

type Op =
  | { kind: 'remember'; layer: Layer; text: number; session: number; ttl: number | undefined; viaOther: boolean }
  | { kind: 'update'; ref: number; text: number | undefined; layer: Layer | undefined; session: number | undefined }
  | { kind: 'forget'; ref: number }
  | { kind: 'forgetWhere'; session: number }
  | { kind: 'clock'; ms: number }
  | { kind: 'sweep' }
  | { kind: 'build'; session: number | undefined };

const TEXTS = ['Prefers phone calls', 'Order 1234 shipped late', '退货政策：30天内', 'The charging port is loose', 'Call back on Monday', 'user asked about refunds'];
const LAYERS_ARB = fc.constantFrom<Layer>('session', 'long_term', 'knowledge');
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('remember' as const), layer: LAYERS_ARB, text: fc.nat(TEXTS.length * 4), session: fc.nat(2), ttl: fc.option(fc.integer({ min: 1000, max: 3_600_000 }), { nil: undefined }), viaOther: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('update' as const), ref: fc.nat(), text: fc.option(fc.nat(TEXTS.length * 4), { nil: undefined }), layer: fc.option(LAYERS_ARB, { nil: undefined }), session: fc.option(fc.nat(2), { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forget' as const), ref: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forgetWhere' as const), session: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('clock' as const), ms: fc.integer({ min: -3_600_000, max: 3_600_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sweep' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('build' as const), session: fc.option(fc.nat(2), { nil: undefined }) }) },
);

describe('the full-history count stays exact', () => {
  it('after any writes, updates, forgets, expiries, clock jumps and another instance\'s writes, it equals a count from scratch (seeded)', async () => {
    const seed = fcSeed('full-history count');
    const tokenizer = await createTokenizer();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), async (ops) => {
        const clock = fakeClock();
        const t = await openTestMemory({ clock, tokenizer, name: `history-${run++}` });
        const other = await openMemoryAt(t.place, { name: t.name, clock, tokenizer });
        const ids: string[] = [];
        const check = async (session: number | undefined) => {
          const sessionId = session === undefined ? undefined : `s${session}`;
          const { report } = await t.memory.buildContext({ namespace: ns, query: 'phone order', budget: 500, ...(sessionId ? { sessionId } : {}) });
          expect(report.fullHistoryTokens).toBe(await independentFullHistory(t.memory, tokenizer, ns, sessionId));
        };
        for (const op of ops) {
          const text = (n: number) => `${TEXTS[n % TEXTS.length]} #${n}`;
          if (op.kind === 'remember') {
            const writer = op.viaOther ? other : t.memory;
            const { id } = await writer.remember({ namespace: ns, content: text(op.text), layer: op.layer, metadata: { session: `s${op.session}` }, ...(op.ttl ? { ttl: op.ttl } : {}) });
            ids.push(id);
          } else if (op.kind === 'update' && ids.length) {
            const id = ids[op.ref % ids.length]!;
            const record = await t.memory.get(ns, id, { rewarm: false });
            if (!record) continue;
            const patch = { ...(op.text !== undefined ? { content: text(op.text) } : {}), ...(op.layer ? { layer: op.layer } : {}), ...(op.session !== undefined ? { metadata: { session: `s${op.session}` } } : {}) };
            if (Object.keys(patch).length) await t.memory.update(ns, id, patch).catch((err) => expect(err.code).toBe('CONFLICT'));
          } else if (op.kind === 'forget' && ids.length) await t.memory.forget(ns, ids[op.ref % ids.length]!);
          else if (op.kind === 'forgetWhere') await t.memory.forgetWhere(ns, { metadata: { session: `s${op.session}` } });
          else if (op.kind === 'clock') clock.advance(op.ms);
          else if (op.kind === 'sweep') await t.memory.sweep();
          else if (op.kind === 'build') await check(op.session);
        }
        await check(undefined);
        await check(0);
        await other.close();
        await t.memory.close();
      }),
      { seed, numRuns: 25 },
    );
  }, 300_000);
});
