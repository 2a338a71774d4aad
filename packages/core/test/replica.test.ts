import { afterEach, describe, expect, it } from 'vitest';
import type { Memory } from '../src/index.ts';
import { replicaOf } from '../src/internal.ts';
import { expectCode, openTestMemory } from './helpers.ts';

const NS = { userId: 'u1', scope: 'shared' };
const open: Memory[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((memory) => memory.close()));
});

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 10_000) throw new Error('the listener was not called');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Counts the listener's calls; `called` resolves on the first. */
function nextCall(memory: Memory): { called: Promise<void>; calls: () => number; stop: () => void } {
  let calls = 0;
  let resolve!: () => void;
  const called = new Promise<void>((done) => (resolve = done));
  const stop = replicaOf(memory).onAuditWrites(() => {
    calls++;
    resolve();
  });
  return { called, calls: () => calls, stop };
}

describe('replicaOf(memory).onAuditWrites', () => {
  it('hears the writes (remember, forget) of its own database, not those of another, and nothing once stopped', async () => {
    const a = await openTestMemory({ name: 'replica-a' });
    const b = await openTestMemory({ name: 'replica-b', place: a.place });
    open.push(a.memory, b.memory);
    const heard = nextCall(a.memory);

    await b.memory.remember({ namespace: NS, content: 'written to the other database' });
    expect(heard.calls()).toBe(0);
    const { record } = await a.memory.remember({ namespace: NS, content: 'written here' });
    await heard.called;
    expect(heard.calls()).toBe(1); // this write only: the other database's write was not heard
    await a.memory.forget(NS, record.id);
    await until(() => heard.calls() === 2);

    heard.stop();
    const stopped = heard.calls();
    await a.memory.remember({ namespace: NS, content: 'after the stop' });
    expect(heard.calls()).toBe(stopped);
  });

  it('refuses anything but an open Memory with INVALID_INPUT', async () => {
    const err = await expectCode(() => replicaOf({} as Memory), 'INVALID_INPUT');
    expect(err.message).toContain('not a Memory opened by openMemory()');
  });
});
