import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { isZeromemError, namespaceKey } from '@zeromem/core';
import { cleanup, device, records, testRelay, token, until, type Device } from './helpers.ts';
import type { SharedNamespace } from '../src/index.ts';

const SHARED = { userId: 'team', scope: 'fuzz' };
const ROOM = namespaceKey(SHARED);
const WORDS = ['tea', 'coffee', 'blender', 'refund', 'invoice', 'phone', 'email', 'birthday', 'paris', 'berlin'];

type Op =
  | { kind: 'remember'; replica: number; word: number }
  | { kind: 'update'; replica: number; pick: number; word: number; tags: boolean }
  | { kind: 'forget'; replica: number; pick: number }
  | { kind: 'toggle'; replica: number }
  | { kind: 'restart'; replica: number }
  | { kind: 'pause' };

const replica = fc.integer({ min: 0, max: 2 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('remember' as const), replica, word: fc.nat(WORDS.length - 1) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('update' as const), replica, pick: fc.nat(), word: fc.nat(WORDS.length - 1), tags: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('forget' as const), replica, pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('toggle' as const), replica }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), replica }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'pause' as const }) },
);

function seed(): number {
  const fromEnv = process.env.FC_SEED;
  const value = fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) : Math.floor(Math.random() * 0x7fffffff);
  console.log(`fast-check seed ${value} (sync convergence); replay with FC_SEED=${value}`);
  return value;
}

async function pick(d: Device, n: number): Promise<string | undefined> {
  const ids = (await records(d.memory, SHARED)).map((r) => r.id);
  return ids.length ? ids[n % ids.length] : undefined;
}

/** Runs the ops on three replicas with a relay restart half-way, then checks convergence. */
async function run(ops: Op[]): Promise<void> {
  let relay = await testRelay();
  const port = Number(new URL(relay.url).port);
  const dataDir = relay.dataDir;
  const rw = await token([ROOM]);
  const devices = [await device('r0'), await device('r1'), await device('r2')];
  const shares: SharedNamespace[] = [];
  for (const d of devices) shares.push(await d.share(SHARED, { url: relay.url, token: rw }));
  await Promise.all(shares.map((s) => s.synced));
  const online = [true, true, true];
  const ever = [...devices];
  const created = new Set<string>();
  const forgotten = new Set<string>();
  let counter = 0;
  for (let i = 0; i < ops.length; i++) {
    if (i === Math.floor(ops.length / 2)) {
      await relay.close();
      relay = await testRelay({ dataDir, port });
    }
    const o = ops[i]!;
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
        shares[o.replica] = await devices[o.replica]!.share(SHARED, { url: relay.url, token: rw });
        if (!online[o.replica]) shares[o.replica]!.disconnect();
      } else if (o.kind === 'toggle') {
        if (online[o.replica]) shares[o.replica]!.disconnect();
        else shares[o.replica]!.connect();
        online[o.replica] = !online[o.replica];
      } else await new Promise((resolve) => setTimeout(resolve, 30));
    } catch (err) {
      // A record forgotten by another replica between pick and write: a defined answer, not a failure.
      if (!isZeromemError(err, 'NOT_FOUND')) throw err;
    }
  }
  shares.forEach((s, i) => {
    if (!online[i]) s.connect();
  });
  let states: string[] = [];
  await until(async () => {
    await Promise.all(shares.map((s) => s.flush()));
    states = await Promise.all(devices.map(async (d) => JSON.stringify(await records(d.memory, SHARED))));
    return states.every((s) => s === states[0]);
  }, 'every replica to hold the same records', 25_000);
  const final = new Set((await records(devices[0]!.memory, SHARED)).map((r) => r.id));
  for (const id of created) if (!forgotten.has(id)) expect(final.has(id), `acknowledged record ${id} is missing`).toBe(true);
  for (const id of forgotten) expect(final.has(id), `forgotten record ${id} came back`).toBe(false);
  for (const word of ['tea', 'refund note', 'paris edit']) {
    const hits = await Promise.all(devices.map(async (d) => (await d.memory.recall(SHARED, word, { trackAccess: false, now: 0 })).hits.map((h) => [h.record.id, h.score])));
    expect(hits[1]).toEqual(hits[0]);
    expect(hits[2]).toEqual(hits[0]);
  }
  for (const d of ever) expect(d.errors, d.name).toEqual([]);
  await cleanup();
}

afterEach(cleanup);

describe('convergence of three replicas through a relay', () => {
  it('random writes, updates, forgets, disconnects, replica restarts and a relay restart end with identical replicas', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 20, maxLength: 50 }), (ops) => run(ops)),
      { seed: seed(), numRuns: Number(process.env.SYNC_FUZZ_RUNS ?? 8), endOnFailure: true },
    );
  }, 180_000);
});
