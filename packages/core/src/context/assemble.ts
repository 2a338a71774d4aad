import { normalizeContent } from '../model/content-hash.ts';
import { invalidInput } from '../model/errors.ts';
import type { MemoryRecord } from '../model/types.ts';
import { MAX_QUERY_LENGTH, type ConversationTurn } from '../model/validate-recall.ts';
import { cachedCount } from './count-cache.ts';
import { fullHistoryTokens } from './full-history.ts';
import { CONTEXT_LAYERS, validateContextOptions, type ContextLayer, type MemoryLayer, type PreparedContext, type PreparedLayer } from './options.ts';
import { SECTION_HEADERS, itemLine, renderMessages, renderSection, renderText, turnRole, type ContextParts, type RenderItem } from './render.ts';
import type { BuiltContext, DropReason, DroppedItem, IncludedItem, LayerUsage } from './report.ts';
import type { ContextSource } from './source.ts';
import { chatMessageTokens, countChatTokens, type Tokenizer } from './tokenizer.ts';

/** A memory that may go into the context. */
interface Candidate {
  layer: MemoryLayer;
  id: string;
  score: number | null;
  item: RenderItem;
  truncated: boolean;
  /** Its line with the newline: what it adds to its section. */
  lineUnit: number;
  /** Its chat message (session turns only). */
  chatUnit: number;
}

/**
 * Builds a layered context within a token budget. Layers are filled in order: system
 * (always in), session (newest turns that fit, contiguous), long-term and knowledge
 * (recall hits by score; one too big is skipped for smaller ones). Content already in is
 * dropped as a duplicate. Fitting is decided on per-line counts, then the rendered text
 * and messages are counted whole and items removed, last chosen first, until every
 * quota and the budget hold exactly.
 * @throws ZeromemError INVALID_INPUT (bad options, or system instructions that do not fit), NAMESPACE_REQUIRED
 */
export async function buildContext(source: ContextSource, tokenizer: Tokenizer, options: unknown): Promise<BuiltContext> {
  const opts = validateContextOptions(options);
  const count = (text: string) => cachedCount(tokenizer, text);
  const fill = new Fill(opts, count, tokenizer);
  const dropped: DroppedItem[] = [];
  const drop = (candidate: Candidate, reason: DropReason, duplicateOf?: string) =>
    dropped.push({ layer: candidate.layer, id: candidate.id, score: candidate.score, tokens: candidate.lineUnit, reason, ...(duplicateOf ? { duplicateOf } : {}) });

  const seen = new Map<string, string>();
  opts.system.forEach((text, i) => seen.set(normalizeContent(text), `system:${i}`));
  checkSystemFits(opts, tokenizer, count);

  for (const layer of opts.layers) {
    if (layer.maxItems === 0) continue;
    const candidates = await fetchCandidates(source, opts, layer, fill, count, tokenizer);
    let stop: DropReason | undefined; // session turns stay contiguous: after one does not fit, none older does
    for (const candidate of candidates) {
      const key = normalizeContent(candidate.item.content);
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
          if (layer.layer === 'session') continue;
          await source.noteUse(layer.namespace, fill.chosen.filter((c) => c.layer === layer.layer).map((c) => c.id));
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
  const parts: ContextParts = { system: opts.system, long_term: [], knowledge: [], session: [] };
  const section = count(opts.system.join('\n'));
  const total = Math.max(count(renderText(parts)), countChatTokens(tokenizer, renderMessages(parts)));
  if (total > opts.budget) {
    throw invalidInput('buildContext options', [{ path: 'budget', message: `the system instructions alone take ${total} tokens, more than the budget of ${opts.budget}; raise the budget or shorten them` }]);
  }
  if (section > opts.systemMaxTokens) {
    throw invalidInput('buildContext options', [{ path: 'layers.system.maxTokens', message: `the system instructions take ${section} tokens, more than the system quota of ${opts.systemMaxTokens}` }]);
  }
}

/** Candidates of one layer, best first: session turns newest first, recall hits by score. */
async function fetchCandidates(
  source: ContextSource,
  opts: PreparedContext,
  layer: PreparedLayer,
  fill: Fill,
  count: (text: string) => number,
  tokenizer: Tokenizer,
): Promise<Candidate[]> {
  // A few more than fit, so the report shows what was left out.
  const pool = Math.min(1000, layer.maxItems * 2 + 10);
  const make = (record: MemoryRecord, score: number | null): Candidate => {
    let content = record.content;
    let truncated = false;
    if (opts.maxItemTokens !== undefined && count(content) > opts.maxItemTokens) {
      content = `${tokenizer.truncate(content, Math.max(0, opts.maxItemTokens - 1))}…`;
      truncated = true;
    }
    const item = { content, role: turnRole(record.source) };
    return {
      layer: layer.layer,
      id: record.id,
      score,
      item,
      truncated,
      lineUnit: count(`${itemLine(layer.layer, item)}\n`),
      chatUnit: layer.layer === 'session' ? chatMessageTokens(count, item) : 0,
    };
  };
  if (layer.layer === 'session') {
    const page = await source.list(layer.namespace, {
      layer: 'session',
      orderBy: 'updatedAt',
      order: 'desc',
      limit: pool,
      ...(opts.sessionId !== undefined ? { metadata: { session: opts.sessionId } } : {}),
    });
    const turns = [...page.items].sort((a, b) => b.updatedAt - a.updatedAt || seq(b) - seq(a));
    return turns.map((record) => make(record, null));
  }
  const query = opts.query ?? fill.conversation();
  if (query === undefined) return [];
  // Candidates are not accesses; the items kept are counted once the context is final.
  const { hits } = await source.recall(layer.namespace, query, {
    k: pool,
    layers: [layer.layer],
    trackAccess: false,
    ...(opts.now !== undefined ? { now: opts.now } : {}),
  });
  return hits.map((hit) => make(hit.record, hit.score));
}

/** The turn number the session helper stores (`metadata.seq`); 0 for other memories. */
function seq(record: MemoryRecord): number {
  const value = record.metadata.seq;
  return typeof value === 'number' ? value : 0;
}

/** The items chosen so far and their estimated size. */
class Fill {
  readonly chosen: Candidate[] = [];
  readonly #opts: PreparedContext;
  readonly #count: (text: string) => number;
  readonly #tokenizer: Tokenizer;
  readonly #systemUnit: number;
  readonly #headers: Record<MemoryLayer, number>;

  constructor(opts: PreparedContext, count: (text: string) => number, tokenizer: Tokenizer) {
    this.#opts = opts;
    this.#count = count;
    this.#tokenizer = tokenizer;
    this.#systemUnit = opts.system.length ? count(`${opts.system.join('\n')}\n`) : 0;
    this.#headers = {
      session: count(`${SECTION_HEADERS.session}\n`),
      long_term: count(`${SECTION_HEADERS.long_term}\n`),
      knowledge: count(`${SECTION_HEADERS.knowledge}\n`),
    };
  }

  /** Why `candidate` does not fit next to what is chosen, or undefined when it does. */
  misfit(candidate: Candidate): DropReason | undefined {
    const layer = this.#opts.layers.find((l) => l.layer === candidate.layer)!;
    const items = this.chosen.filter((c) => c.layer === candidate.layer);
    if (items.length >= layer.maxItems) return 'quota';
    const trial = [...this.chosen, candidate];
    const overLayer = this.#layerEstimate(trial, candidate.layer) > layer.maxTokens;
    // A layer quota as large as the budget is the budget: say so.
    if (overLayer && layer.maxTokens < this.#opts.budget) return 'quota';
    if (overLayer || this.#totalEstimate(trial) > this.#opts.budget) return 'budget';
    return undefined;
  }

  add(candidate: Candidate): void {
    this.chosen.push(candidate);
  }

  /** Takes out the last chosen item (of `layer`, when given) and returns it. */
  removeLast(layer?: MemoryLayer): Candidate {
    let index = this.chosen.length - 1;
    if (layer) while (index >= 0 && this.chosen[index]!.layer !== layer) index--;
    return this.chosen.splice(index, 1)[0]!;
  }

  /** The chosen session turns, oldest first, as a conversation (the default recall query), within recall's query length. */
  conversation(): ConversationTurn[] | undefined {
    const turns: ConversationTurn[] = [];
    let room = MAX_QUERY_LENGTH;
    for (const c of this.chosen) {
      if (c.layer !== 'session' || room <= 0) continue;
      const content = c.item.content.slice(0, room);
      room -= content.length;
      turns.unshift({ role: c.item.role, content });
    }
    return turns.length ? turns : undefined;
  }

  /** The rendered context and its exact counts. */
  exact(): { textForm: string; messageForm: ReturnType<typeof renderMessages>; text: number; messages: number; layers: Record<ContextLayer, number> } {
    const parts = this.#parts(this.chosen);
    const textForm = renderText(parts);
    const messageForm = renderMessages(parts);
    const session = parts.session;
    const sessionChat = session.reduce((sum, item) => sum + chatMessageTokens(this.#count, item), 0);
    return {
      textForm,
      messageForm,
      text: this.#count(textForm),
      messages: countChatTokens(this.#tokenizer, messageForm),
      layers: {
        system: parts.system.length ? this.#count(parts.system.join('\n')) : 0,
        session: session.length ? Math.max(this.#count(renderSection('session', session)), sessionChat) : 0,
        long_term: parts.long_term.length ? this.#count(renderSection('long_term', parts.long_term)) : 0,
        knowledge: parts.knowledge.length ? this.#count(renderSection('knowledge', parts.knowledge)) : 0,
      },
    };
  }

  #parts(chosen: readonly Candidate[]): ContextParts {
    const of = (layer: MemoryLayer) => chosen.filter((c) => c.layer === layer).map((c) => c.item);
    return { system: this.#opts.system, long_term: of('long_term'), knowledge: of('knowledge'), session: of('session').reverse() };
  }

  /** A section's size from its lines: header and lines, each with its newline. */
  #sectionEstimate(chosen: readonly Candidate[], layer: MemoryLayer): number {
    const items = chosen.filter((c) => c.layer === layer);
    return items.length ? this.#headers[layer] + items.reduce((sum, c) => sum + c.lineUnit, 0) : 0;
  }

  #layerEstimate(chosen: readonly Candidate[], layer: MemoryLayer): number {
    const section = this.#sectionEstimate(chosen, layer);
    if (layer !== 'session') return section;
    return Math.max(section, chosen.reduce((sum, c) => sum + (c.layer === 'session' ? c.chatUnit : 0), 0));
  }

  /** The larger of the text and chat forms, one token per section separator on top. */
  #totalEstimate(chosen: readonly Candidate[]): number {
    const inSystem = [this.#systemUnit, this.#sectionEstimate(chosen, 'long_term'), this.#sectionEstimate(chosen, 'knowledge')].filter((n) => n > 0);
    const systemPart = inSystem.reduce((sum, n) => sum + n + 1, 0);
    const session = this.#sectionEstimate(chosen, 'session');
    const text = systemPart + (session ? session + 1 : 0);
    const chat = 3 + (systemPart ? 3 + this.#count('system') + systemPart : 0) + chosen.reduce((sum, c) => sum + c.chatUnit, 0);
    return Math.max(text, chat);
  }
}
