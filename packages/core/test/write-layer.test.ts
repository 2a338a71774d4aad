import { describe, expect, it } from 'vitest';
import type { Namespace } from '../src/index.ts';
import { memoryInternals } from '../src/test-hooks.ts';
import type { LifecycleContext } from '../src/lifecycle/lifecycle-context.ts';
import { consolidate } from '../src/lifecycle/consolidate.ts';
import { importJsonl } from '../src/lifecycle/import-jsonl.ts';
import { applyReplicated } from '../src/verbs/apply-replicated.ts';
import { forgetNamespace } from '../src/verbs/forget-namespace.ts';
import { forgetUser } from '../src/verbs/forget-user.ts';
import { forgetWhere } from '../src/verbs/forget-where.ts';
import { forget } from '../src/verbs/forget.ts';
import { sweep } from '../src/lifecycle/sweep.ts';
import { openTestMemory, type TestMemory } from './helpers.ts';
import { indexTraces, recordingTokenizer } from './traces.ts';

const SECRET = 'The vault code is quokka-7731-xylophone';
const ns: Namespace = { userId: 'u1', agentId: 'support' };

/** Each deleting verb, called through its own module (not through Memory) on the secret `id`; returns the ids it deleted. */
const VERBS: Array<[string, (ctx: LifecycleContext, t: TestMemory, id: string) => Promise<string[]>]> = [
  ['forget', async (ctx, _t, id) => ((await forget(ctx, ns, id)) ? [id] : [])],
  ['forgetWhere', (ctx) => forgetWhere(ctx, ns, { tags: { any: ['secret'] } })],
  ['forgetNamespace', async (ctx, _t, id) => ((await forgetNamespace(ctx, ns)) === 1 ? [id] : [])],
  ['forgetUser', async (ctx, _t, id) => ((await forgetUser(ctx, 'u1')) === 1 ? [id] : [])],
  ['sweep', async (ctx, t) => (t.clock.advance(2 * 3_600_000), (await sweep(ctx)).map((deleted) => deleted.id))],
  ['consolidate', async (ctx) => (await consolidate(ctx, ns)).groups.flatMap((group) => group.mergedIds)],
  [
    'importJsonl',
    async (ctx, t, id) => {
      // The secret expired; an import of the same content deletes the expired row in its way.
      t.clock.advance(2 * 3_600_000);
      const other = await openTestMemory({ clock: t.clock });
      await other.memory.remember({ namespace: ns, content: SECRET });
      const result = await importJsonl(ctx, await other.memory.exportJsonl({ namespace: ns }));
      await other.memory.close();
      return result.imported === 1 ? [id] : [];
    },
  ],
  ['applyReplicated', async (ctx, t, id) => (await applyReplicated(ctx, ns, [{ delete: id }], { after: (await t.memory.audit(ns)).at(-1)!.seq })).deleted],
];

describe('the write layer: every deleting verb purges the copies itself', () => {
  it.each(VERBS)('%s, called without Memory, leaves the record in no loaded index and no line of it in the token-count cache', async (name, run) => {
    const watched = await recordingTokenizer();
    const t = await openTestMemory({ tokenizer: watched.tokenizer });
    const { id } = await t.memory.remember({ namespace: ns, content: SECRET, tags: ['secret'], ...(name === 'sweep' || name === 'importJsonl' ? { ttl: '1h' } : {}) });
    const ids = [id];
    if (name === 'consolidate') {
      // Merges the secret with a newer copy of it (the same text but for case and punctuation): one of them goes.
      t.clock.advance(1000);
      ids.push((await t.memory.remember({ namespace: ns, content: `${SECRET.toUpperCase()}!`, tags: ['secret'] })).id);
    }
    expect((await t.memory.recall(ns, 'vault code quokka')).hits.map((hit) => hit.id)).toContain(id); // loads the index
    expect((await t.memory.buildContext({ namespace: ns, query: 'vault code quokka' })).text).toContain(SECRET); // counts its line
    const lines = [...watched.counted].filter((text) => text.includes('quokka'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter(watched.cached)).toEqual(lines); // control: the cache holds them
    expect(indexTraces(t.memory, [], ids)).toHaveLength(ids.length); // control: the loaded index holds the records

    const deleted = await run(memoryInternals.get(t.memory)!, t, id);
    expect(deleted).toHaveLength(1);
    expect(indexTraces(t.memory, [], deleted)).toEqual([]);
    expect(lines.filter(watched.cached)).toEqual([]);
    await t.memory.close();
  });
});
