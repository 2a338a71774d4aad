import { normalizeContent } from '../model/content-hash.ts';
import { invalidInput } from '../model/errors.ts';
import type { Limits } from '../public/limits.ts';
import { fetchCandidates } from './candidates.ts';
import { cachedCount } from './count-cache.ts';
import { Fill, type Candidate } from './fill.ts';
import { fullHistoryTokens } from './full-history.ts';
import { CONTEXT_LAYERS, validateContextOptions, type MemoryLayer, type PreparedContext } from './options.ts';
import type { ContextLayer, BuiltContext, DropReason, DroppedItem, IncludedItem, LayerUsage } from '../public/context.ts';
import { itemLine, renderMessages, renderText, type ContextParts } from './render.ts';
import type { ContextSource } from './source.ts';
import { countChatTokens } from './tokenizer.ts';
import type { Tokenizer } from '../public/tokenizer.ts';

/**
 * Builds a layered context within a token budget, in two passes. First each layer takes
 * its own quota, in order: system (always in), profile, session (newest turns that fit,
 * contiguous), long-term and knowledge (recall hits by score; one too big is skipped for
 * smaller ones). Then what the layers left unused (items and tokens) goes to the
 * candidates still out, while the budget has room: profile facts, then the recalled
 * layers' hits merged by score, then older session turns (still contiguous). So a layer
 * exceeds its quota only with what the others left, and the layers together never exceed
 * theirs. Content already in is dropped as a duplicate. Fitting is decided on per-line
 * counts, then the rendered text and messages are counted whole and items removed, last
 * chosen first, until the budget and the layers' quotas together hold exactly. Names are
 * checked against the memory's `limits`.
 * @throws ZeromemError INVALID_INPUT (bad options, or system instructions that do not fit), NAMESPACE_REQUIRED
 */
export async function buildContext(source: ContextSource, tokenizer: Tokenizer, options: unknown, limits: Limits): Promise<BuiltContext> {
  const opts = validateContextOptions(options, limits);
  const count = (text: string) => cachedCount(tokenizer, text);
  const fill = new Fill(opts, count, tokenizer);
  const dropped: DroppedItem[] = [];
  const drop = (candidate: Candidate, reason: DropReason, detail: string, duplicateOf?: string) =>
    dropped.push({ layer: candidate.layer, id: candidate.id, score: candidate.score, tokens: candidate.lineUnit, reason, detail, ...(duplicateOf ? { duplicateOf } : {}) });
  /** Left out for the budget or the quotas together, with the numbers that say so (`rendered`: the exact pass's count). */
  const dropMisfit = (candidate: Candidate, reason: DropReason, rendered?: number) => {
    const cost = fill.cost(candidate);
    const budget = rendered === undefined ? `${fill.estimate()} of ${opts.budget} tokens of the budget in use` : `as rendered, the context with it takes ${rendered} of ${opts.budget} tokens of the budget`;
    if (reason !== 'quota') return drop(candidate, reason, rendered === undefined ? `${budget}, this item needs ${cost.budget}` : budget);
    const pool = fill.pool();
    drop(candidate, reason, `the layers' quotas are spent: ${pool.items} of ${pool.maxItems} items, ${pool.tokens} of ${pool.maxTokens} tokens in use, this item needs ${cost.quotas}; ${budget}`);
  };

  const seen = new Map<string, string>();
  opts.system.forEach((text, i) => seen.set(normalizeContent(text), `system:${i}`));
  checkSystemFits(opts, tokenizer, count);
  /** False when the same content is already in (then it is dropped as a duplicate). */
  const isNew = (candidate: Candidate) => {
    const holder = seen.get(normalizeContent(candidate.content));
    if (holder !== undefined) drop(candidate, 'duplicate', `the same content is already in (${holder})`, holder);
    return holder === undefined;
  };
  const take = (candidate: Candidate) => {
    fill.add(candidate);
    seen.set(normalizeContent(candidate.content), candidate.id);
  };

  // First pass: each layer within its own quota. What does not fit waits for the second.
  const waiting = new Map<MemoryLayer, Candidate[]>();
  for (const layer of opts.layers) {
    if (layer.maxItems === 0) continue;
    const candidates = await fetchCandidates(source, opts, layer, fill, count, tokenizer);
    const left: Candidate[] = [];
    waiting.set(layer.layer, left);
    for (const candidate of candidates) {
      if (!isNew(candidate)) continue;
      // Session turns stay contiguous: after one does not fit, every older one waits too.
      if ((layer.layer === 'session' && left.length) || !fill.fitsShare(candidate)) left.push(candidate);
      else take(candidate);
    }
  }

  // Second pass: what the layers left unused, to the candidates still out, while the budget has room.
  const recalled = [...(waiting.get('long_term') ?? []), ...(waiting.get('knowledge') ?? [])].sort(byScore);
  for (const candidates of [waiting.get('profile') ?? [], recalled, waiting.get('session') ?? []]) {
    // Session turns stay contiguous: once one is left out, every older one goes with it,
    // and says so (it may fit by itself, so its own numbers would not explain it).
    let stop: { reason: DropReason; newer: Candidate } | undefined;
    for (const candidate of candidates) {
      if (!isNew(candidate)) continue;
      if (stop) {
        drop(candidate, stop.reason, `a newer session turn (${stop.newer.id}) was left out for the ${stop.reason === 'budget' ? 'budget' : "layers' quotas"}; turns stay contiguous, so older ones are left out with it`);
        continue;
      }
      const reason = fill.misfitShared(candidate);
      if (!reason) take(candidate);
      else {
        dropMisfit(candidate, reason);
        if (candidate.layer === 'session') stop = { reason, newer: candidate };
      }
    }
  }

  // Exact pass: count what is rendered; take the last chosen out until everything holds.
  for (;;) {
    const exact = fill.exact();
    const rendered = Math.max(exact.text, exact.messages);
    if (rendered > opts.budget) dropMisfit(fill.removeLast(), 'budget', rendered);
    else if (fill.pool(exact.layers).tokens > fill.pool().maxTokens) dropMisfit(fill.removeLast(), 'quota', rendered);
    else {
      if (opts.trackAccess) {
        for (const layer of opts.layers) {
          if (layer.layer === 'session' || layer.layer === 'profile') continue;
          await source.countAccess(layer.namespace, fill.chosen.filter((c) => c.layer === layer.layer).map((c) => c.id));
        }
      }
      const included: IncludedItem[] = [
        ...opts.system.map((text, i) => ({ layer: 'system' as const, id: `system:${i}`, score: null, tokens: count(text), truncated: false })),
        ...fill.chosen.map((c) => ({ layer: c.layer, id: c.id, score: c.score, tokens: count(itemLine(c.layer, c.item)), truncated: c.truncated })),
      ];
      const layers = {} as Record<ContextLayer, LayerUsage>;
      for (const name of CONTEXT_LAYERS) {
        const prepared = opts.layers.find((layer) => layer.layer === name);
        const items = name === 'system' ? opts.system.length : fill.chosen.filter((c) => c.layer === name).length;
        layers[name] = {
          tokens: exact.layers[name],
          items,
          maxItems: name === 'system' ? opts.system.length : (prepared?.maxItems ?? 0),
          maxTokens: name === 'system' ? opts.systemMaxTokens : (prepared?.maxTokens ?? 0),
        };
      }
      return {
        text: exact.textForm,
        messages: exact.messageForm,
        report: {
          tokenizer: tokenizer.id,
          budget: opts.budget,
          tokens: Math.max(exact.text, exact.messages),
          textTokens: exact.text,
          messageTokens: exact.messages,
          layers,
          included,
          dropped,
          fullHistoryTokens: opts.fullHistory ? await fullHistoryTokens(source, tokenizer, opts) : null,
        },
      };
    }
  }
}

/** The system instructions are always in: a budget or quota too small for them is the caller's mistake. */
function checkSystemFits(opts: PreparedContext, tokenizer: Tokenizer, count: (text: string) => number): void {
  if (!opts.system.length) return;
  const parts: ContextParts = { system: opts.system, profile: [], long_term: [], knowledge: [], session: [] };
  const section = count(opts.system.join('\n'));
  const total = Math.max(count(renderText(parts)), countChatTokens(tokenizer, renderMessages(parts)));
  if (total > opts.budget) {
    throw invalidInput('buildContext options', [{ path: 'budget', message: `the system instructions alone take ${total} tokens, more than the budget of ${opts.budget}; raise the budget or shorten them` }]);
  }
  if (section > opts.systemMaxTokens) {
    throw invalidInput('buildContext options', [{ path: 'layers.system.maxTokens', message: `the system instructions take ${section} tokens, more than the system quota of ${opts.systemMaxTokens}` }]);
  }
}

/** Best score first; unscored candidates (latest memories, no query) keep their order. */
function byScore(a: Candidate, b: Candidate): number {
  return (b.score ?? -Infinity) - (a.score ?? -Infinity) || 0;
}
