import fc from 'fast-check';
import { afterEach, describe, it } from 'vitest';
import { SeededLink } from '../../../test/kit/sync-link.ts';
import { testSeed } from '../../../test/kit/seed.ts';
import { cleanup, device, token } from './helpers.ts';
import { ROOM, SHARED, ops, runOps, type Carrier } from './convergence-model.ts';
import type { SharedNamespace } from '../src/index.ts';

afterEach(cleanup);

/**
 * Flushes every share, a macrotask apart, until two rounds in a row queue no new message:
 * what the last operation or delivery set off (remote changes applied, then heard back from
 * the audit log) is done before the next one starts.
 */
async function settle(link: SeededLink, shares: SharedNamespace[]): Promise<void> {
  for (let quiet = 0; quiet < 2; ) {
    const before = link.pending;
    await Promise.all(shares.map((s) => s.flush()));
    await new Promise((resolve) => setImmediate(resolve));
    quiet = link.pending === before ? quiet + 1 : 0;
  }
}

/**
 * The replicas share through a {@link SeededLink} (its seed drawn with the run): nothing moves but
 * what a pause hands over (in seeded order), and each step settles before the next, so the
 * same seed gives the same run (but for the client ids Yjs draws itself: see SeededLink).
 * Their clock is one fake clock, moved a second per operation.
 */
async function throughLink(list: Parameters<typeof runOps>[0], seed: number): Promise<void> {
  const link = new SeededLink(seed);
  let now = Date.UTC(2026, 0, 1);
  const clock = { now: () => now };
  const rw = await token([ROOM]);
  const carrier: Carrier = {
    share: (d) => d.share(SHARED, { url: link.url, token: rw, WebSocketPolyfill: link.WebSocketPolyfill }),
    async after(op, _index, _count, shares) {
      now += 1000;
      if (op.kind === 'pause') link.deliver(op.messages);
      await settle(link, shares);
    },
    async converge(same, shares) {
      for (let round = 0; ; round++) {
        link.deliverAll();
        await settle(link, shares);
        if (link.pending === 0 && (await same())) return;
        if (round === 100) throw new Error('the replicas did not converge with every message delivered');
      }
    },
  };
  await runOps(list, (name) => device(name, undefined, undefined, { clock }), carrier);
  await cleanup();
}

describe('convergence of three replicas through the seeded link', () => {
  it('random writes, updates, forgets, disconnects, replica restarts and message orders end with identical replicas', async () => {
    await fc.assert(
      fc.asyncProperty(ops, fc.nat(), (list, linkSeed) => throughLink(list, linkSeed)),
      { seed: testSeed('sync convergence'), numRuns: Number(process.env.SYNC_FUZZ_RUNS ?? 15), endOnFailure: true },
    );
  }, 180_000);
});
