import { describe, expect, it } from 'vitest';
import type { Namespace } from '../src/index.ts';
import { memoryInternals } from '../src/test-hooks.ts';
import { importJsonl } from '../src/lifecycle/import-jsonl.ts';
import { replicatedState } from '../src/model/replicated-state.ts';
import { applyReplicated } from '../src/verbs/apply-replicated.ts';
import { get } from '../src/verbs/get.ts';
import { recall } from '../src/verbs/recall.ts';
import { remember, rememberMany } from '../src/verbs/remember.ts';
import { update } from '../src/verbs/update.ts';
import { hashingEmbedder } from '../../../test/kit/hashing-embedder.ts';
import { expectCode, openTestMemory } from './helpers.ts';

const ns: Namespace = { userId: 'u1', agentId: 'support' };
const DAY = 86_400_000;

/**
 * Each verb's whole contract is in its module (issue 30 item 1): called without Memory, on
 * the context an open memory runs on, a verb validates, writes, queues embeddings,
 * suggests, redacts and re-warms as `memory.<verb>()` does. `Memory` only reads input.
 */
describe('a verb called through its own module does all that memory.<verb>() does', () => {
  async function withEmbedder() {
    const embedded: string[] = [];
    const t = await openTestMemory({ embedder: hashingEmbedder({ onEmbed: (texts) => embedded.push(...texts) }) });
    await t.memory.whenEmbedded();
    return { ...t, ctx: memoryInternals.get(t.memory)! as never, embedded };
  }

  it.each([
    ['remember', (ctx: never) => remember(ctx, { namespace: ns, content: 'The locker code is 4411' })],
    ['rememberMany', (ctx: never) => rememberMany(ctx, [{ namespace: ns, content: 'The locker code is 4411' }])],
  ])('%s queues the new record for embedding', async (_name, run) => {
    const t = await withEmbedder();
    await run(t.ctx);
    await t.memory.whenEmbedded();
    expect(t.embedded).toContain('The locker code is 4411');
    await t.memory.close();
  });

  it('update queues the changed content for embedding', async () => {
    const t = await withEmbedder();
    const { id } = await t.memory.remember({ namespace: ns, content: 'The locker code is 4411' });
    await update(t.ctx, ns, id, { content: 'The locker code is 9902' });
    await t.memory.whenEmbedded();
    expect(t.embedded).toContain('The locker code is 9902');
    await t.memory.close();
  });

  it('importJsonl and applyReplicated queue what they wrote for embedding', async () => {
    const t = await withEmbedder();
    const other = await openTestMemory();
    const elsewhere: Namespace = { userId: 'u2' };
    await other.memory.remember({ namespace: ns, content: 'Imported: the gate opens at 7' });
    const { record } = await other.memory.remember({ namespace: elsewhere, content: 'Replicated: the gate opens at 8' });
    expect(await importJsonl(t.ctx, await other.memory.exportJsonl({ namespace: ns }))).toMatchObject({ imported: 1 });
    await other.memory.close();
    const replicated = await applyReplicated(t.ctx, elsewhere, [{ put: replicatedState(record) }], { after: 0 });
    expect(replicated.written).toHaveLength(1);
    await t.memory.whenEmbedded();
    expect(t.embedded).toEqual(expect.arrayContaining(['Imported: the gate opens at 7', 'Replicated: the gate opens at 8']));
    await t.memory.close();
  });

  it('remember with suggestUpdates returns the suggested updates', async () => {
    const t = await openTestMemory();
    const ctx = memoryInternals.get(t.memory)! as never;
    const plan = await t.memory.remember({ namespace: ns, content: 'The phone plan is 5 GB a month' });
    const bigger = await remember(ctx, { namespace: ns, content: 'The phone plan is 20 GB a month' }, { suggestUpdates: true });
    expect(bigger.suggestedUpdates.map((s) => s.id)).toEqual([plan.id]);
    await t.memory.close();
  });

  it('get validates rewarm and re-warms a cold record it reads', async () => {
    const t = await openTestMemory();
    const ctx = memoryInternals.get(t.memory)! as never;
    const { id } = await t.memory.remember({ namespace: ns, content: 'Old address: 4 Rue Neuve', importance: 0.1 });
    t.clock.advance(31 * DAY);
    await t.memory.retier();
    await expectCode(get(ctx, ns, id, { rewarm: 'no' }), 'INVALID_INPUT', 'rewarm');
    expect((await get(ctx, ns, id, { rewarm: false }))?.tier).toBe('cold');
    expect((await get(ctx, ns, id))?.tier).toBe('hot');
    await t.memory.close();
  });

  it('recall redacts the query as stored text is, and re-warms the cold hits it counts', async () => {
    const t = await openTestMemory({ redaction: { detectors: { phone: 'hash' }, hashKey: 'a-secret-key-of-16+' } });
    const ctx = memoryInternals.get(t.memory)! as never;
    const { id } = await t.memory.remember({ namespace: ns, content: 'callback number +86 13800138000', importance: 0.1 });
    expect((await recall(ctx, ns, 'who called from 13800138000', {})).hits.map((h) => h.id)).toEqual([id]);
    t.clock.advance(31 * DAY);
    await t.memory.retier();
    const found = await recall(ctx, ns, 'callback number', { includeCold: true });
    expect(found.hits.map((h) => [h.id, h.record.tier])).toEqual([[id, 'hot']]);
    await t.memory.close();
  });
});
