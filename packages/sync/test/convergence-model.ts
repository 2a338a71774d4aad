import fc from 'fast-check';
import { expect } from 'vitest';
import { isZeromemError, namespaceKey } from '@zeromem/core';
import { records, type Device } from './helpers.ts';
import type { SharedNamespace } from '../src/index.ts';

/**
 * The convergence property of three replicas, whatever carries their messages: random
 * writes, updates, forgets, disconnects and replica restarts, then every replica holds the
 * same records, nothing acknowledged is missing, nothing forgotten came back, and recall
 * answers alike. convergence.property.test.ts runs it on the seeded in-process link (replays
 * exactly from its seed); convergence.e2e.test.ts through a real relay, restarted half-way.
 */

export const SHARED = { userId: 'team', scope: 'fuzz' };
export const ROOM = namespaceKey(SHARED);
const WORDS = ['tea', 'coffee', 'blender', 'refund', 'invoice', 'phone', 'email', 'birthday', 'paris', 'berlin'];

export type Op =
  | { kind: 'remember'; replica: number; word: number }
  | { kind: 'update'; replica: number; pick: number; word: number; tags: boolean }
  | { kind: 'forget'; replica: number; pick: number }
  | { kind: 'toggle'; replica: number }
  | { kind: 'restart'; replica: number }
  /** Time passes: the messages on their way move (on the link: `messages` of them, in seeded order). */
  | { kind: 'pause'; messages: number };

const replica = fc.integer({ min: 0, max: 2 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('remember' as const), replica, word: fc.nat(WORDS.length - 1) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('update' as const), replica, pick: fc.nat(), word: fc.nat(WORDS.length - 1), tags: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('forget' as const), replica, pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('toggle' as const), replica }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), replica }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pause' as const), messages: fc.integer({ min: 1, max: 12 }) }) },
);

/** Sequences of 20 to 50 operations. */
export const ops = fc.array(op, { minLength: 20, maxLength: 50 });

/** What carries the replicas' messages. */
export interface Carrier {
  /** Shares {@link SHARED} of a device's memory. */
  share(device: Device): Promise<SharedNamespace>;
  /** After operation `index` of `count` (a pause moves messages; the relay restarts half-way). */
  after(op: Op, index: number, count: number, shares: SharedNamespace[]): Promise<void>;
  /** Resolves once `same()` holds, moving messages meanwhile; rejects when it never does. */
  converge(same: () => Promise<boolean>, shares: SharedNamespace[]): Promise<void>;
}

/** The `n`th record (modulo their number) in the order they were created: ids are random, a seed must pick the same record. */
async function pick(d: Device, n: number): Promise<string | undefined> {
  const ids = (await records(d.memory, SHARED)).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)).map((r) => r.id);
  return ids.length ? ids[n % ids.length] : undefined;
}

/** Runs `list` on three replicas (`open(name)` opens each) over `carrier`, then checks convergence. */
export async function runOps(list: Op[], open: (name: string) => Promise<Device>, carrier: Carrier): Promise<void> {
  const devices = [await open('r0'), await open('r1'), await open('r2')];
  const shares: SharedNamespace[] = [];
  for (const d of devices) shares.push(await carrier.share(d));
  await carrier.converge(async () => (await Promise.race([Promise.all(shares.map((s) => s.synced)).then(() => true), later(false)])) === true, shares);
  const online = [true, true, true];
  const ever = [...devices];
  const created = new Set<string>();
  const forgotten = new Set<string>();
  let counter = 0;
  for (let i = 0; i < list.length; i++) {
    const o = list[i]!;
    const d = o.kind === 'pause' ? undefined : devices[o.replica]!;
    try {
      if (o.kind === 'remember') {
        created.add((await d!.memory.remember({ namespace: SHARED, content: `${WORDS[o.word]} note ${counter++} from ${d!.name}` })).id);
      } else if (o.kind === 'update') {
        const id = await pick(d!, o.pick);
        if (id) await d!.memory.update(SHARED, id, o.tags ? { tags: [WORDS[o.word]!] } : { content: `${WORDS[o.word]} edit ${counter++} by ${d!.name}` });
      } else if (o.kind === 'forget') {
        const id = await pick(d!, o.pick);
        if (id && (await d!.memory.forget(SHARED, id))) forgotten.add(id);
      } else if (o.kind === 'restart') {
        // The replica closes (share, then memory) and opens again on the same IndexedDB.
        await devices[o.replica]!.close();
        devices[o.replica] = await devices[o.replica]!.reopen();
        ever.push(devices[o.replica]!);
        shares[o.replica] = await carrier.share(devices[o.replica]!);
        if (!online[o.replica]) shares[o.replica]!.disconnect();
      } else if (o.kind === 'toggle') {
        if (online[o.replica]) shares[o.replica]!.disconnect();
        else shares[o.replica]!.connect();
        online[o.replica] = !online[o.replica];
      }
    } catch (err) {
      // A record forgotten by another replica between pick and write: a defined answer, not a failure.
      if (!isZeromemError(err, 'NOT_FOUND')) throw err;
    }
    await carrier.after(o, i, list.length, shares);
  }
  shares.forEach((s, i) => {
    if (!online[i]) s.connect();
  });
  let states: string[] = [];
  await carrier.converge(async () => {
    await Promise.all(shares.map((s) => s.flush()));
    states = await Promise.all(devices.map(async (d) => JSON.stringify(await records(d.memory, SHARED))));
    return states.every((s) => s === states[0]);
  }, shares);
  const final = new Set((await records(devices[0]!.memory, SHARED)).map((r) => r.id));
  for (const id of created) if (!forgotten.has(id)) expect(final.has(id), `acknowledged record ${id} is missing`).toBe(true);
  for (const id of forgotten) expect(final.has(id), `forgotten record ${id} came back`).toBe(false);
  for (const word of ['tea', 'refund note', 'paris edit']) {
    const hits = await Promise.all(devices.map(async (d) => (await d.memory.recall(SHARED, word, { trackAccess: false, now: 0 })).hits.map((h) => [h.record.id, h.score])));
    expect(hits[1]).toEqual(hits[0]);
    expect(hits[2]).toEqual(hits[0]);
  }
  for (const d of ever) expect(d.errors, d.name).toEqual([]);
}

/** Resolves with `value` on the next macrotask (a promise not settled by then is not settled yet). */
function later<T>(value: T): Promise<T> {
  return new Promise((resolve) => setImmediate(() => resolve(value)));
}
