import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { cleanup, client, synced, tempDir, token, until } from './helpers.ts';
import { type RelayProcess, serveRelay } from './spawn-relay.ts';
import { testSeed } from '../../../test/kit/seed.ts';

const ROOM = 'u=alice;s=shared';
const REPLICAS = 3;

afterEach(cleanup);

type Step =
  | { op: 'set'; replica: number; key: string; value: string }
  | { op: 'delete'; replica: number; key: string }
  | { op: 'disconnect'; replica: number }
  | { op: 'connect'; replica: number }
  | { op: 'pause'; ms: number };

const replica = fc.integer({ min: 0, max: REPLICAS - 1 });
const key = fc.constantFrom('k0', 'k1', 'k2', 'k3', 'k4', 'k5');
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('set' as const), replica, key, value: fc.string({ maxLength: 12 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), replica, key }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('disconnect' as const), replica }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('connect' as const), replica }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('pause' as const), ms: fc.integer({ min: 0, max: 15 }) }) },
);

/** The relay's document as a fresh client receives it: JSON, state vector and snapshot (state vector and deletions). */
async function probe(relay: { url: string }, authToken: string): Promise<{ json: unknown; stateVector: Map<number, number>; snapshot: Y.Snapshot }> {
  const { doc, provider } = client(relay.url, ROOM, authToken);
  await synced(provider);
  const result = { json: doc.getMap('records').toJSON(), stateVector: Y.decodeStateVector(Y.encodeStateVector(doc)), snapshot: Y.snapshot(doc) };
  provider.destroy();
  return result;
}

/**
 * Restarts the relay on `port`, the address the replicas know. The port was free only since
 * the kill: under load another process may hold it for a moment, so a start that failed
 * with EADDRINUSE is retried (any other failure is not).
 */
async function restartOn(dataDir: string, flags: readonly string[], port: number): Promise<RelayProcess & { url: string }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      return await serveRelay(dataDir, flags, port);
    } catch (err) {
      if (!(err as Error).message.includes('EADDRINUSE') || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Resolves once the relay on `port` has no open socket (polling GET /healthz). */
async function idle(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const health = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { connections: number };
    if (health.connections === 0) return;
    if (Date.now() > deadline) throw new Error('relay still has open sockets');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('convergence through the relay', () => {
  it('replicas with random writes, deletes, disconnects and a relay crash (SIGKILL) and restart end identical, losing nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 20, maxLength: 60 }), fc.array(step, { minLength: 5, maxLength: 30 }), async (before, after) => {
        const dataDir = tempDir();
        // The real bin; compacting often so crashes also hit compacted rooms.
        const flags = ['--quiet', '--compact-every', '7'];
        let relay: RelayProcess & { url: string } = await serveRelay(dataDir, flags);
        const port = Number(new URL(relay.url).port);
        const rw = await token([ROOM]);
        const replicas = Array.from({ length: REPLICAS }, () => client(relay.url, ROOM, rw));
        await Promise.all(replicas.map((r) => synced(r.provider)));

        const run = async (steps: Step[]) => {
          for (const s of steps) {
            if (s.op === 'set') replicas[s.replica]!.doc.getMap('records').set(s.key, s.value);
            else if (s.op === 'delete') replicas[s.replica]!.doc.getMap('records').delete(s.key);
            else if (s.op === 'disconnect') replicas[s.replica]!.provider.disconnect();
            else if (s.op === 'connect') replicas[s.replica]!.provider.connect();
            else await new Promise((resolve) => setTimeout(resolve, s.ms));
          }
        };
        try {
          await run(before);

          // Crash and restart: what the relay served before must be there after, without any
          // replica's help (they stay away until the check is done).
          const connected = replicas.map((r) => r.provider.shouldConnect);
          for (const r of replicas) r.provider.disconnect();
          // Sockets close after their last message, so once the relay counts none, it has
          // handled everything the replicas sent.
          await idle(port);
          const acknowledged = await probe(relay, rw);
          relay.child.kill('SIGKILL');
          await relay.exited;
          relay = await restartOn(dataDir, flags, port);
          const restarted = await probe(relay, rw);
          expect({ json: restarted.json, stateVector: restarted.stateVector }).toEqual({ json: acknowledged.json, stateVector: acknowledged.stateVector });
          expect(Y.equalSnapshots(restarted.snapshot, acknowledged.snapshot)).toBe(true);
          replicas.forEach((r, i) => connected[i] && r.provider.connect());

          await run(after);
          for (const r of replicas) r.provider.connect();
          // Converged means the same state vector and the same deletions: a delete adds no
          // clock, so equal state vectors alone can pass while a forwarded delete is in flight.
          const sameDocument = () => {
            const [first, ...rest] = replicas.map((r) => Y.snapshot(r.doc));
            return rest.every((other) => Y.equalSnapshots(other, first!));
          };
          await until(() => replicas.every((r) => r.provider.synced) && sameDocument(), 'replicas to converge', 20_000);

          const states = replicas.map((r) => r.doc.getMap('records').toJSON());
          for (const state of states) expect(state).toEqual(states[0]);
          // Every write of every replica (online or offline) reached the relay and the others.
          const final = await probe(relay, rw);
          expect(final.json).toEqual(states[0]);
          expect(Y.equalSnapshots(final.snapshot, Y.snapshot(replicas[0]!.doc))).toBe(true);
          for (const r of replicas) {
            const own = Y.decodeStateVector(Y.encodeStateVector(r.doc)).get(r.doc.clientID) ?? 0;
            expect(final.stateVector.get(r.doc.clientID) ?? 0).toBe(own);
          }
        } finally {
          for (const r of replicas) r.provider.destroy();
          relay.child.kill('SIGKILL');
          await relay.exited;
        }
      }),
      { seed: testSeed('relay convergence'), numRuns: 8, endOnFailure: true },
    );
  }, 180_000);
});
