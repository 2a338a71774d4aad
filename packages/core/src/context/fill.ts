import { MAX_QUERY_LENGTH } from '../rank/validate-recall.ts';
import type { ConversationTurn } from '../public/recall.ts';
import type { MemoryLayer, PreparedContext } from './options.ts';
import type { ContextLayer, DropReason } from '../public/context.ts';
import { SECTION_HEADERS, renderMessages, renderSection, renderText, type ContextParts, type RenderItem } from './render.ts';
import { chatMessageTokens, countChatTokens } from './tokenizer.ts';
import type { Tokenizer } from '../public/tokenizer.ts';

/** A memory that may go into the context. */
export interface Candidate {
  layer: MemoryLayer;
  id: string;
  score: number | null;
  item: RenderItem;
  truncated: boolean;
  /** Its line with the newline: what it adds to its section. */
  lineUnit: number;
  /** Its chat message (session turns only). */
  chatUnit: number;
  /** The memory's own content: what a lower layer must not repeat (a profile line renders it with its key). */
  content: string;
}

/** The items chosen so far and their estimated size. */
export class Fill {
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
      profile: count(`${SECTION_HEADERS.profile}\n`),
      session: count(`${SECTION_HEADERS.session}\n`),
      long_term: count(`${SECTION_HEADERS.long_term}\n`),
      knowledge: count(`${SECTION_HEADERS.knowledge}\n`),
    };
  }

  /** True when `candidate` fits its own layer's quota and the budget next to what is chosen (first pass). */
  fitsShare(candidate: Candidate): boolean {
    const layer = this.#opts.layers.find((l) => l.layer === candidate.layer)!;
    if (this.chosen.filter((c) => c.layer === candidate.layer).length >= layer.maxItems) return false;
    const trial = [...this.chosen, candidate];
    return this.#layerEstimate(trial, candidate.layer) <= layer.maxTokens && this.#totalEstimate(trial) <= this.#opts.budget;
  }

  /**
   * Why `candidate` does not fit what the layers left unused (second pass), or undefined
   * when it does: `budget` when the budget has no room for it, `quota` when the layers'
   * quotas together (items or tokens) are spent.
   */
  misfitShared(candidate: Candidate): DropReason | undefined {
    const cost = this.cost(candidate);
    if (this.estimate() + cost.budget > this.#opts.budget) return 'budget';
    const pool = this.pool();
    return pool.items + 1 > pool.maxItems || pool.tokens + cost.quotas > pool.maxTokens ? 'quota' : undefined;
  }

  /** What `candidate` would add to the estimated total (`budget`) and to the layers' quota tokens together (`quotas`): its line, and its section's header when it is the first. */
  cost(candidate: Candidate): { budget: number; quotas: number } {
    const trial = [...this.chosen, candidate];
    const layers = (chosen: readonly Candidate[]) => this.#memoryLayers().reduce((sum, l) => sum + this.#layerEstimate(chosen, l.layer), 0);
    return { budget: this.#totalEstimate(trial) - this.estimate(), quotas: layers(trial) - layers(this.chosen) };
  }

  /**
   * The memory layers' quotas together (a layer left out, or with 0 items, has none) and
   * what the chosen items take of them: tokens as estimated, or as `exact` counts them.
   */
  pool(exact?: Record<ContextLayer, number>): { items: number; maxItems: number; tokens: number; maxTokens: number } {
    const layers = this.#memoryLayers();
    return {
      items: this.chosen.length,
      maxItems: layers.reduce((sum, l) => sum + l.maxItems, 0),
      tokens: layers.reduce((sum, l) => sum + (exact ? exact[l.layer] : this.#layerEstimate(this.chosen, l.layer)), 0),
      maxTokens: layers.reduce((sum, l) => sum + l.maxTokens, 0),
    };
  }

  /** Estimated tokens of what is chosen. */
  estimate(): number {
    return this.#totalEstimate(this.chosen);
  }

  add(candidate: Candidate): void {
    this.chosen.push(candidate);
  }

  /** Takes out the last chosen item and returns it. */
  removeLast(): Candidate {
    return this.chosen.pop()!;
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
        profile: parts.profile.length ? this.#count(renderSection('profile', parts.profile)) : 0,
        session: session.length ? Math.max(this.#count(renderSection('session', session)), sessionChat) : 0,
        long_term: parts.long_term.length ? this.#count(renderSection('long_term', parts.long_term)) : 0,
        knowledge: parts.knowledge.length ? this.#count(renderSection('knowledge', parts.knowledge)) : 0,
      },
    };
  }

  #memoryLayers() {
    return this.#opts.layers.filter((l) => l.maxItems > 0);
  }

  #parts(chosen: readonly Candidate[]): ContextParts {
    const of = (layer: MemoryLayer) => chosen.filter((c) => c.layer === layer).map((c) => c.item);
    return { system: this.#opts.system, profile: of('profile'), long_term: of('long_term'), knowledge: of('knowledge'), session: of('session').reverse() };
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
    const inSystem = [this.#systemUnit, this.#sectionEstimate(chosen, 'profile'), this.#sectionEstimate(chosen, 'long_term'), this.#sectionEstimate(chosen, 'knowledge')].filter((n) => n > 0);
    const systemPart = inSystem.reduce((sum, n) => sum + n + 1, 0);
    const session = this.#sectionEstimate(chosen, 'session');
    const text = systemPart + (session ? session + 1 : 0);
    const chat = 3 + (systemPart ? 3 + this.#count('system') + systemPart : 0) + chosen.reduce((sum, c) => sum + c.chatUnit, 0);
    return Math.max(text, chat);
  }
}
