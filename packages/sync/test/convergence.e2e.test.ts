import fc from 'fast-check';
import { afterEach, describe, it } from 'vitest';
import { cleanup, device, testRelay, token, until } from './helpers.ts';
import { ROOM, SHARED, ops, runOps, type Carrier } from './convergence-model.ts';
import { testSeed } from '../../../test/kit/seed.ts';

afterEach(cleanup);

/**
 * The convergence property end to end: the replicas share through a real relay over
 * sockets, and the relay restarts half-way (its storage kept). The same property runs on
 * the seeded in-process link in convergence.property.test.ts, where a failure replays exactly.
 */
async function throughRelay(list: Parameters<typeof runOps>[0]): Promise<void> {
  let relay = await testRelay();
  const port = Number(new URL(relay.url).port);
  const dataDir = relay.dataDir;
  const rw = await token([ROOM]);
  const carrier: Carrier = {
    share: (d) => d.share(SHARED, { url: relay.url, token: rw }),
    async after(op, index, count) {
      if (op.kind === 'pause') await new Promise((resolve) => setTimeout(resolve, 30));
      if (index === Math.floor(count / 2) - 1) {
        await relay.close();
        relay = await testRelay({ dataDir, port });
      }
    },
    converge: (same) => until(same, 'every replica to hold the same records', 25_000),
  };
  await runOps(list, (name) => device(name), carrier);
  await cleanup();
}

describe('convergence of three replicas through a relay', () => {
  it('random writes, updates, forgets, disconnects, replica restarts and a relay restart end with identical replicas', async () => {
    await fc.assert(fc.asyncProperty(ops, (list) => throughRelay(list)), {
      seed: testSeed('sync convergence through a relay'),
      numRuns: Number(process.env.SYNC_FUZZ_RUNS ?? 8),
      endOnFailure: true,
    });
  }, 180_000);
});
