import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countChatTokens, createTokenizer, normalizeContent, ZeromemError, type BuildContextOptions, type Layer } from '../src/index.ts';
import { fcSeed, openTestMemory } from './helpers.ts';

/**
 * Whatever is stored and however the quotas are set, a built context never exceeds the
 * total budget (a hard cap), counted independently on what was rendered (text and chat
 * messages, headers and separators included). A layer's quota is not a cap: a layer may
 * exceed it only with what the other layers left unused, so the layers together never
 * exceed their quotas together (items and tokens), and a candidate is left out for a quota
 * only when those are spent, never for one full layer. Session turns are the newest ones,
 * contiguous, oldest first; no content appears twice; every candidate is either in or
 * dropped with a reason that its numbers bear out.
 */

const WORDS = ['phone', 'charging', 'port', 'loose', 'call', 'e-mail', 'order', 'warranty', 'repair', 'the', 'is', 'a', '电话', '充电口', '松了', '用户', '😀', '<|endoftext|>', '\n', '  '];
const text = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 80 }).map((words) => words.join(' ')).filter((t) => t.trim() !== '');
const memoryArb = fc.record({ content: text, layer: fc.constantFrom<Layer>('session', 'long_term', 'knowledge'), role: fc.constantFrom('user', 'assistant', 'tool', 'system') as fc.Arbitrary<'user' | 'assistant' | 'tool' | 'system'> });
const quota = fc.option(fc.record({ maxItems: fc.option(fc.nat(8), { nil: undefined }), maxTokens: fc.option(fc.nat(400), { nil: undefined }) }, { requiredKeys: [] }), { nil: undefined });
const optionsArb = fc.record({
  budget: fc.integer({ min: 1, max: 600 }),
  system: fc.option(fc.array(text, { minLength: 1, maxLength: 2 }), { nil: undefined }),
  query: fc.option(text, { nil: undefined }),
  maxItemTokens: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
  profile: fc.boolean(),
  session: quota,
  long_term: quota,
  knowledge: quota,
});

describe('buildContext budgets (property)', () => {
  it('never exceeds the budget or a quota, counted on what is rendered', async () => {
    const tokenizer = await createTokenizer();
    const seed = fcSeed('context budgets');
    await fc.assert(
      fc.asyncProperty(fc.array(memoryArb, { maxLength: 25 }), optionsArb, async (memories, o) => {
        const { memory, clock } = await openTestMemory();
        const ns = { userId: 'u' };
        try {
          for (const m of memories) {
            clock.advance(1000);
            await memory.remember({ namespace: ns, content: m.content, layer: m.layer, source: m.role, ...(m.layer === 'session' ? { ttl: '1d' } : {}) });
          }
          const options: BuildContextOptions = {
            namespace: ns,
            budget: o.budget,
            ...(o.system ? { system: o.system } : {}),
            ...(o.query ? { query: o.query } : {}),
            ...(o.maxItemTokens ? { maxItemTokens: o.maxItemTokens } : {}),
            layers: { ...(o.profile ? {} : { profile: false as const }), session: o.session ?? {}, long_term: o.long_term ?? {}, knowledge: o.knowledge ?? {} },
          };
          let built;
          try {
            built = await memory.buildContext(options);
          } catch (err) {
            // Only a system text larger than the budget may refuse; verify that it is.
            expect(err).toBeInstanceOf(ZeromemError);
            expect((err as ZeromemError).code).toBe('INVALID_INPUT');
            const system = o.system!.join('\n');
            expect(Math.max(tokenizer.count(system), countChatTokens(tokenizer, [{ role: 'system', content: system }]))).toBeGreaterThan(o.budget);
            return;
          }
          const { text: rendered, messages, report } = built;
          expect(tokenizer.count(rendered)).toBe(report.textTokens);
          expect(countChatTokens(tokenizer, messages)).toBe(report.messageTokens);
          expect(report.textTokens).toBeLessThanOrEqual(o.budget);
          expect(report.messageTokens).toBeLessThanOrEqual(o.budget);

          // Each layer's section, found in the rendered text and counted here.
          // (Contents here never hold "#", so a header line is a header.)
          const sectionOf = (header: string): string | undefined => {
            const at = rendered.startsWith(`${header}\n`) ? 0 : rendered.indexOf(`\n${header}\n`) + 1;
            if (at === 0 && !rendered.startsWith(`${header}\n`)) return undefined;
            const end = rendered.indexOf('\n\n## ', at);
            return rendered.slice(at, end === -1 ? undefined : end);
          };
          const hasSystemMessage = report.layers.system.items + report.layers.long_term.items + report.layers.knowledge.items > 0;
          // The layers' quotas together (a layer with 0 items is left out; the profile, with no keyed facts here, lends its own).
          const quotas = (['session', 'long_term', 'knowledge'] as const).map((layer) => ({
            maxItems: o[layer]?.maxItems ?? { session: 50, long_term: 20, knowledge: 20 }[layer],
            maxTokens: o[layer]?.maxTokens ?? o.budget,
          }));
          if (o.profile) quotas.push({ maxItems: 20, maxTokens: o.budget });
          const pool = quotas.filter((q) => q.maxItems > 0).reduce((sum, q) => ({ items: sum.items + q.maxItems, tokens: sum.tokens + q.maxTokens }), { items: 0, tokens: 0 });
          let usedItems = 0;
          let usedTokens = 0;
          const check = (layer: 'session' | 'long_term' | 'knowledge', header: string) => {
            const items = report.included.filter((i) => i.layer === layer);
            usedItems += items.length;
            const section = sectionOf(header);
            if (!items.length) return expect(section).toBeUndefined();
            let tokens = tokenizer.count(section!);
            if (layer === 'session') {
              const turns = messages.slice(hasSystemMessage ? 1 : 0);
              expect(turns).toHaveLength(items.length);
              tokens = Math.max(tokens, turns.reduce((sum, m) => sum + 3 + tokenizer.count(m.role) + tokenizer.count(m.content), 0));
            }
            expect(tokens).toBe(report.layers[layer].tokens);
            usedTokens += tokens;
          };
          check('session', '## Conversation');
          check('long_term', '## Long-term memory');
          check('knowledge', '## Knowledge');
          expect(usedItems).toBeLessThanOrEqual(pool.items);
          expect(usedTokens).toBeLessThanOrEqual(pool.tokens);
          // A quota drop says, in numbers, that the quotas together were spent; a budget drop, that the budget was.
          for (const d of report.dropped) {
            const spent = /^the layers' quotas are spent: (\d+) of (\d+) items, (\d+) of (\d+) tokens in use, this item needs (\d+); /.exec(d.detail);
            const estimated = /(\d+) of (\d+) tokens of the budget in use, this item needs (\d+)$/.exec(d.detail);
            const rendered = /as rendered, the context with it takes (\d+) of (\d+) tokens of the budget$/.exec(d.detail);
            // An older session turn goes with a newer one left out before it (turns stay contiguous).
            const withNewer = /^a newer session turn \((\w+)\) was left out for the (budget|layers' quotas); /.exec(d.detail);
            if (withNewer) {
              const newer = report.dropped.find((n) => n.id === withNewer[1]);
              expect([d.layer, newer?.layer, newer?.reason]).toEqual(['session', 'session', d.reason]);
              expect(withNewer[2]).toBe(d.reason === 'budget' ? 'budget' : "layers' quotas");
              continue;
            }
            if (d.reason === 'quota') {
              expect(spent).not.toBeNull();
              const [, items, maxItems, tokens, maxTokens, need] = spent!.map(Number);
              expect([maxItems, maxTokens]).toEqual([pool.items, pool.tokens]);
              // Decided on estimates (first and second pass), or on the rendered count (exact pass).
              if (!rendered) expect(items! + 1 > maxItems! || tokens! + need! > maxTokens!).toBe(true);
            }
            if (d.reason === 'budget') {
              if (estimated) expect(Number(estimated[1]) + Number(estimated[3])).toBeGreaterThan(o.budget);
              else expect(Number(rendered![1])).toBeGreaterThan(o.budget);
            }
          }

          // Session turns: the newest, contiguous, in chronological order.
          // Newest first by last change: a turn said again (deduplicated) is as new as its repeat.
          const turns = (await memory.list(ns, { layer: 'session', orderBy: 'updatedAt', limit: 1000 })).items;
          const chosen = report.included.filter((i) => i.layer === 'session').map((i) => i.id);
          const seenContent = new Set<string>();
          const expectedPrefix: string[] = [];
          for (const t of turns) {
            if (expectedPrefix.length === chosen.length) break;
            if (!chosen.includes(t.id)) continue; // only a duplicate (or a turn over the item quota) may be skipped
            expectedPrefix.push(t.id);
          }
          expect(chosen).toEqual(expectedPrefix);
          const droppedSession = report.dropped.filter((d) => d.layer === 'session' && d.reason !== 'duplicate').map((d) => d.id);
          for (const id of droppedSession) {
            const newestDropped = turns.findIndex((t) => t.id === id);
            const oldestChosen = Math.max(-1, ...chosen.map((c) => turns.findIndex((t) => t.id === c)));
            expect(newestDropped).toBeGreaterThan(oldestChosen - (chosen.length ? 0 : 1));
          }

          // No content twice; every dropped item says why.
          for (const item of report.included) {
            if (item.layer === 'system') continue;
            const record = (await memory.get(ns, item.id))!;
            const key = normalizeContent(record.content);
            expect(seenContent.has(key)).toBe(false);
            seenContent.add(key);
          }
          for (const d of report.dropped) expect(['quota', 'budget', 'duplicate']).toContain(d.reason);
          const ids = [...report.included, ...report.dropped].map((i) => `${i.layer}/${i.id}`);
          expect(new Set(ids).size).toBe(ids.length);
        } finally {
          await memory.close();
        }
      }),
      { seed, numRuns: 60 },
    );
  });
});
