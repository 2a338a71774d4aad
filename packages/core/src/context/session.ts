import { IssueList, checkEnum, checkKnownKeys, checkName, checkTtl, describe, isPlainObject } from '../model/checks.ts';
import { invalidInput } from '../model/errors.ts';
import { ZeromemError } from '../public/errors.ts';
import type { Limits } from '../public/limits.ts';
import { readInputs } from '../model/read-input.ts';
import { requireNamespace } from '../model/namespace.ts';
import type { RememberInput, RememberResult } from '../public/remember.ts';
import type { UpdatePatch } from '../public/update.ts';
import type { ListOptions, ListPage } from '../public/list.ts';
import type { Duration, MemoryRecord, Namespace } from '../public/memory-record.ts';
import type { ConversationTurn } from '../public/recall.ts';
import { addSpend, noSpend } from './llm-hook.ts';
import type { LlmHook, LlmSpend } from '../public/llm-hook.ts';
import type { BuildContextOptions, BuiltContext } from '../public/context.ts';
import { turnRole } from './render.ts';
import type { ChatMessage, Tokenizer } from '../public/tokenizer.ts';
import type { SessionOptions, TurnOptions, SessionEndReport } from '../public/session.ts';

/** What a session reads and writes through: public verbs of Memory. */
export interface SessionMemory {
  remember(input: RememberInput): Promise<RememberResult>;
  update(namespace: Namespace, id: string, patch: UpdatePatch): Promise<MemoryRecord>;
  list(namespace: Namespace, options: ListOptions): Promise<ListPage>;
  buildContext(options: BuildContextOptions): Promise<BuiltContext>;
}

/** What `end()` has done so far: a retry after a failure (e.g. of the LLM hook) repeats no completed step. */
interface EndProgress {
  /** The conversation's turns, oldest first. */
  turns: MemoryRecord[];
  promoted: string[];
  /** The hook's facts, once it answered. */
  facts?: string[];
  /** Ids of the facts stored so far, in the order of `facts`. */
  extracted: string[];
  /** The hook's summary, once it answered. */
  summary?: string;
  summaryId: string | null;
}

const ROLES = ['user', 'assistant', 'system', 'tool'] as const;
const TURN_FIELDS = ['durable', 'tags', 'importance'] as const;

/**
 * One conversation of an agent loop. Turns are memories of the session layer with a TTL
 * (written through `remember`), `context()` builds the budgeted context for the next
 * prompt, `end()` keeps what was marked durable and lets the rest expire. No LLM is
 * called unless `end()` is asked to use the `llm` hook.
 */
export class Session {
  /** The session id (`metadata.session` of its turns). */
  readonly id: string;
  readonly namespace: Namespace;
  readonly #memory: SessionMemory;
  readonly #tokenizer: () => Promise<Tokenizer>;
  readonly #ttl: Duration;
  readonly #defaults: SessionOptions['context'];
  readonly #llm: LlmHook | undefined;
  readonly #spend = noSpend();
  #seq = 0;
  #ended = false;
  #progress: EndProgress | undefined;

  /** @internal Use `memory.session()`. */
  constructor(memory: SessionMemory, tokenizer: () => Promise<Tokenizer>, options: SessionOptions, limits: Limits, now: number) {
    const issues = new IssueList();
    if (!isPlainObject(options)) throw invalidInput('session options', [{ path: '', message: `must be an object like { namespace }, got ${describe(options)}` }]);
    checkKnownKeys(options, ['namespace', 'id', 'ttl', 'context', 'llm'], '', issues);
    this.namespace = requireNamespace(options.namespace, limits.maxNameLength).namespace;
    this.id = options.id === undefined ? crypto.randomUUID() : (checkName(options.id, 'id', limits.maxNameLength, issues) ?? '');
    // A ttl that cannot fit after now fails here, not at the first turn (each turn checks it again from its own time).
    if (options.ttl !== undefined) checkTtl(options.ttl, now, 'ttl', issues);
    if (options.context !== undefined && !isPlainObject(options.context)) issues.add('context', 'must be an object of buildContext options');
    if (options.llm !== undefined && (typeof options.llm !== 'object' || options.llm === null)) issues.add('llm', 'must be an object with extractFacts and/or summarize');
    if (!issues.ok) throw invalidInput('session options', issues.items);
    this.#memory = memory;
    this.#tokenizer = tokenizer;
    this.#ttl = options.ttl ?? '1d';
    this.#defaults = options.context;
    this.#llm = options.llm;
  }

  /** What the LLM hook has spent in this session so far. */
  get llmSpend(): LlmSpend {
    return { ...this.#spend };
  }

  /**
   * Stores a turn (layer `session`, source = role, TTL). Saying the same thing again in
   * the session moves the stored turn to now instead of storing it twice. Content that is
   * already a memory of another kind stays that memory.
   * @throws ZeromemError INVALID_INPUT, CLOSED after `end()`
   */
  async addTurn(role: ConversationTurn['role'], content: string, options: TurnOptions = {}): Promise<MemoryRecord> {
    [role, content, options] = readInputs(role, content, options);
    this.#open();
    const issues = new IssueList();
    const source = checkEnum(role, ROLES, 'role', issues);
    if (!isPlainObject(options)) issues.add('options', `must be an object like { durable }, got ${describe(options)}`);
    else {
      checkKnownKeys(options, TURN_FIELDS, 'options', issues);
      if (options.durable !== undefined && typeof options.durable !== 'boolean') issues.add('options.durable', 'must be a boolean');
    }
    if (!issues.ok) throw invalidInput('turn', issues.items);
    const seq = ++this.#seq;
    const durable = options.durable === true;
    const result = await this.#memory.remember({
      namespace: this.namespace,
      content,
      source: source!,
      layer: 'session',
      ttl: this.#ttl,
      metadata: { session: this.id, seq, durable },
      ...(options.tags ? { tags: options.tags } : {}),
      ...(options.importance !== undefined ? { importance: options.importance } : {}),
    });
    const existing = result.record;
    if (!result.deduplicated || existing.layer !== 'session' || existing.metadata.session !== this.id) return existing;
    return this.#memory.update(this.namespace, existing.id, {
      metadata: { ...existing.metadata, seq, durable: durable || existing.metadata.durable === true },
      ttl: this.#ttl,
    });
  }

  /**
   * The context for the next prompt: this session's newest turns plus recalled memories,
   * within the budget. `query` defaults to the selected turns.
   * @throws ZeromemError INVALID_INPUT, CLOSED after `end()`
   */
  context(query?: string | ConversationTurn[], options: Omit<BuildContextOptions, 'namespace' | 'query' | 'sessionId'> = {}): Promise<BuiltContext> {
    [query, options] = readInputs(query, options);
    this.#open();
    return this.#memory.buildContext({
      ...this.#defaults,
      ...options,
      namespace: this.namespace,
      sessionId: this.id,
      ...(query !== undefined ? { query } : {}),
    });
  }

  /**
   * Ends the session: turns marked durable become long-term memories without expiry; the
   * others keep their TTL and expire. With the `llm` hook and `extractFacts` / `summarize`,
   * the hook's facts and summary are stored as long-term memories and its tokens reported.
   * When a step fails (e.g. the hook throws), calling `end()` again is safe: turns already
   * promoted, hook answers already received and memories already stored are not redone.
   * @throws ZeromemError INVALID_INPUT (an LLM step asked for without a hook that has it), CLOSED when already ended
   */
  async end(options: { extractFacts?: boolean; summarize?: boolean } = {}): Promise<SessionEndReport> {
    [options] = readInputs(options);
    this.#open();
    const issues = new IssueList();
    if (!isPlainObject(options)) issues.add('', `must be an object like { extractFacts, summarize }, got ${describe(options)}`);
    else {
      checkKnownKeys(options, ['extractFacts', 'summarize'], '', issues);
      for (const step of ['extractFacts', 'summarize'] as const) {
        if (options[step] !== undefined && typeof options[step] !== 'boolean') issues.add(step, 'must be a boolean');
        else if (options[step] && typeof this.#llm?.[step] !== 'function') issues.add(step, `needs a session llm hook with ${step}()`);
      }
    }
    if (!issues.ok) throw invalidInput('session end', issues.items);
    const progress = await this.#endProgress();
    for (const turn of progress.turns) {
      if (turn.metadata.durable !== true || progress.promoted.includes(turn.id)) continue;
      await this.#memory.update(this.namespace, turn.id, { layer: 'long_term', expiresAt: null });
      progress.promoted.push(turn.id);
    }
    const chat: ChatMessage[] = progress.turns.map((turn) => ({ role: turnRole(turn.source), content: turn.content }));
    if (options.extractFacts && chat.length) {
      if (!progress.facts) {
        const { facts, usage } = await this.#llm!.extractFacts!(chat);
        if (!Array.isArray(facts) || facts.some((fact) => typeof fact !== 'string')) {
          throw invalidInput('llm hook result', [{ path: 'facts', message: `extractFacts must resolve to { facts: string[] }, got ${describe(facts)}` }]);
        }
        addSpend(this.#spend, await this.#tokenizer(), chat, facts, usage);
        progress.facts = facts;
      }
      for (const fact of progress.facts.slice(progress.extracted.length)) {
        const { id } = await this.#memory.remember({ namespace: this.namespace, content: fact, source: 'memory', metadata: { session: this.id, extracted: true } });
        progress.extracted.push(id);
      }
    }
    if (options.summarize && chat.length) {
      const texts = chat.map((turn) => `${turn.role}: ${turn.content}`);
      if (progress.summary === undefined) {
        const { summary, usage } = await this.#llm!.summarize!(texts);
        if (typeof summary !== 'string') throw invalidInput('llm hook result', [{ path: 'summary', message: `summarize must resolve to { summary: string }, got ${describe(summary)}` }]);
        addSpend(this.#spend, await this.#tokenizer(), texts.map((content) => ({ role: 'user', content })), [summary], usage);
        progress.summary = summary;
      }
      if (progress.summaryId === null) {
        const { id } = await this.#memory.remember({ namespace: this.namespace, content: progress.summary, source: 'memory', tags: ['session-summary'], metadata: { session: this.id } });
        progress.summaryId = id;
      }
    }
    this.#ended = true;
    return {
      promoted: [...progress.promoted],
      expiring: progress.turns.filter((turn) => turn.metadata.durable !== true).length,
      extracted: [...progress.extracted],
      summaryId: progress.summaryId,
      llm: { ...this.#spend },
    };
  }

  /**
   * What earlier, failed `end()` calls did, joined with the turns listed now (a promoted
   * turn is no longer in the session layer, but still part of the conversation).
   */
  async #endProgress(): Promise<EndProgress> {
    const listed = await this.#turns();
    const progress = (this.#progress ??= { turns: [], promoted: [], extracted: [], summaryId: null });
    const known = new Set(progress.turns.map((turn) => turn.id));
    progress.turns = [...progress.turns, ...listed.filter((turn) => !known.has(turn.id))].sort(bySeq);
    return progress;
  }

  /** This session's live turns, oldest first. */
  async #turns(): Promise<MemoryRecord[]> {
    const turns: MemoryRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.#memory.list(this.namespace, { layer: 'session', metadata: { session: this.id }, order: 'asc', limit: 1000, ...(cursor ? { cursor } : {}) });
      turns.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return turns.sort(bySeq);
  }

  #open(): void {
    if (this.#ended) throw new ZeromemError('CLOSED', `Session ${this.id} has ended; start a new one with memory.session().`);
  }
}

function bySeq(a: MemoryRecord, b: MemoryRecord): number {
  return (Number(a.metadata.seq) || 0) - (Number(b.metadata.seq) || 0);
}
