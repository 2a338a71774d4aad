import { normalizeContent } from '../model/content-hash.ts';
import { invalidInput } from '../model/errors.ts';
import type { Limits } from '../model/limits.ts';
import { fetchCandidates } from './candidates.ts';
import { cachedCount } from './count-cache.ts';
import { Fill, type Candidate } from './fill.ts';
import { fullHistoryTokens } from './full-history.ts';
import { CONTEXT_LAYERS, validateContextOptions, type ContextLayer, type PreparedContext } from './options.ts';
import { itemLine, renderMessages, renderText, type ContextParts } from './render.ts';
import type { BuiltContext, DropReason, DroppedItem, IncludedItem, LayerUsage } from './report.ts';
import type { ContextSource } from './source.ts';
import { countChatTokens, type Tokenizer } from './tokenizer.ts';

/**
 * Builds a layered context within a token budget. Layers are filled in order: system
 * (always in), session (newest turns that fit, contiguous), long-term and knowledge
 * (recall hits by score; one too big is skipped for smaller ones). Content already in is
 * dropped as a duplicate. Fitting is decided on per-line counts, then the rendered text
 * and messages are counted whole and items removed, last chosen first, until every
 * quota and the budget hold exactly. Names are checked against the memory's `limits`.
 * @throws ZeromemError INVALID_INPUT (bad options, or system instructions that do not fit), NAMESPACE_REQUIRED
 */
export async function buildContext(source: ContextSource, tokenizer: Tokenizer, options: unknown, limits: Limits): Promise<BuiltContext> {
  const opts = validateContextOptions(options, limits);
  const count = (text: string) => cachedCount(tokenizer, text);
  const fill = new Fill(opts, count, tokenizer);
  const dropped: DroppedItem[] = [];
  const drop = (candidate: Candidate, reason: DropReason, duplicateOf?: string) =>
    dropped.push({
      layer: candidate.layer,
      id: candidate.id,
      score: candidate.score,
      tokens: candidate.lineUnit,
      reason,
      detail: reason === 'duplicate' ? `the same content is already in (${duplicateOf})` : `${fill.estimate()} of ${opts.budget} tokens in use, this item needs ${candidate.lineUnit}`,
      ...(duplicateOf ? { duplicateOf } : {}),
    });

  const seen = new Map<string, string>();
  opts.system.forEach((text, i) => seen.set(normalizeContent(text), `system:${i}`));
  checkSystemFits(opts, tokenizer, count);

  for (const layer of opts.layers) {
    if (layer.maxItems === 0) continue;
    const candidates = await fetchCandidates(source, opts, layer, fill, count, tokenizer);
    let stop: DropReason | undefined; // session turns stay contiguous: after one does not fit, none older does
    for (const candidate of candidates) {
      const key = normalizeContent(candidate.content);
      const holder = seen.get(key);
      if (holder !== undefined) {
        drop(candidate, 'duplicate', holder);
        continue;
      }
      const reason = stop ?? fill.misfit(candidate);
      if (reason) {
        drop(candidate, reason);
        if (layer.layer === 'session') stop = reason;
        continue;
      }
      fill.add(candidate);
      seen.set(key, candidate.id);
    }
  }

  // Exact pass: count what is rendered; take the last chosen out until everything holds.
  for (;;) {
    const exact = fill.exact();
    const over = opts.layers.find((layer) => exact.layers[layer.layer] > layer.maxTokens);
    if (over) drop(fill.removeLast(over.layer), over.maxTokens < opts.budget ? 'quota' : 'budget');
    else if (exact.text > opts.budget || exact.messages > opts.budget) drop(fill.removeLast(), 'budget');
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

