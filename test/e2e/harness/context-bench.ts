/**
 * Workload of test/bench/context-speed.ts: `buildContext` in an agent loop over a large
 * namespace. Runs in the page (real Chromium IndexedDB) and in Node (fake-indexeddb, the
 * script passes its own `open`); every timing is taken here with performance.now().
 *
 * The namespace: `records` memories (~100 characters; four in five long-term, one in five
 * knowledge), then a conversation of 20 session turns, so that session turns are few
 * among many records. Each timed step, as an agent loop goes (turns added untimed):
 *  - one more turn, then the whole `buildContext` (3-word query, budget 300, this
 *    session, full history on);
 *  - one more turn, then the full-history part alone: the namespace's history counts
 *    caught up (that turn) and read, as buildContext does (an internal, hence the import);
 *  - the same buildContext with `fullHistory: false`;
 *  - the session layer's `list` alone, exactly as the context asks for it.
 */
import { namespaceKey, openMemory, type Memory } from '@zeromem/core';
import * as internals from '../../../packages/core/src/test-hooks.ts';
import { mulberry32 as prng } from '../../kit/mulberry32.ts';

export interface ContextSpeedOptions {
  name: string;
  records: number;
  /** Timed steps after the first (cold) build. */
  builds: number;
  seed: number;
}

export interface ContextSpeedResult {
  records: number;
  /** rememberMany of the records and the 20 turns (ms). */
  fillMs: number;
  /** The first build: loads the search index and counts the full history from the store (ms). */
  coldBuildMs: number;
  /** Per step (ms). */
  build: number[];
  fullHistory: number[];
  buildWithoutHistory: number[];
  sessionList: number[];
  fullHistoryTokens: number;
  contextTokens: number;
}

const WORDS = (
  'customer prefers phone calls after six order shipped late charging port loose refund approved warranty extended battery ' +
  'replaced screen cracked invoice address changed delivery window monday courier parcel damaged support ticket escalated'
).split(' ');
const NS = { userId: 'bench-user', agentId: 'support' };
const SESSION = 's1';
const CONTEXT = { namespace: NS, query: 'charging port loose', budget: 300, sessionId: SESSION };
/** The list the session layer makes (context/candidates.ts: 50 items by default, twice plus ten). */
const SESSION_LIST = { layer: 'session' as const, orderBy: 'updatedAt' as const, order: 'desc' as const, limit: 110, metadata: { session: SESSION } };

export async function contextSpeed(o: ContextSpeedOptions, open: (name: string) => Promise<Memory> = (name) => openMemory({ name })): Promise<ContextSpeedResult> {
  const memory = await open(o.name);
  try {
    const random = prng(o.seed);
    const sentence = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ');
    let start = performance.now();
    for (let from = 0; from < o.records; from += 10_000) {
      const count = Math.min(10_000, o.records - from);
      await memory.rememberMany(
        Array.from({ length: count }, (_, k) => ({
          namespace: NS,
          content: `${sentence(12)} (note ${from + k})`,
          layer: (from + k) % 5 === 0 ? ('knowledge' as const) : ('long_term' as const),
        })),
      );
    }
    const session = memory.session({ namespace: NS, id: SESSION });
    for (let i = 0; i < 20; i++) await session.addTurn(i % 2 ? 'assistant' : 'user', `${sentence(8)} (turn ${i})`);
    const fillMs = performance.now() - start;

    start = performance.now();
    let built = await memory.buildContext(CONTEXT);
    const coldBuildMs = performance.now() - start;

    const build: number[] = [];
    const fullHistory: number[] = [];
    const buildWithoutHistory: number[] = [];
    const sessionList: number[] = [];
    const time = async (work: () => Promise<unknown>, into: number[]) => {
      const t0 = performance.now();
      await work();
      into.push(performance.now() - t0);
    };
    // The memory's own history counts: found only when core was loaded from the same sources as this import.
    const history = internals.historyInternals.get(memory);
    if (!history) throw new Error('context-bench: this memory has no history counts in core/src/test-hooks.ts: load core from its sources (tsx --conditions=development), or the full-history column is lost');
    const tokenizer = await memory.tokenizer();
    for (let step = 0; step < o.builds; step++) {
      await session.addTurn('user', `${sentence(8)} (step ${step})`);
      await time(async () => void (built = await memory.buildContext(CONTEXT)), build);
      await session.addTurn('assistant', `${sentence(8)} (answer ${step})`);
      await time(async () => (await history.read(namespaceKey(NS), tokenizer))('long_term'), fullHistory);
      await time(() => memory.buildContext({ ...CONTEXT, fullHistory: false }), buildWithoutHistory);
      await time(() => memory.list(NS, SESSION_LIST), sessionList);
    }
    return { records: o.records, fillMs, coldBuildMs, build, fullHistory, buildWithoutHistory, sessionList, fullHistoryTokens: built.report.fullHistoryTokens ?? 0, contextTokens: built.report.tokens };
  } finally {
    await memory.close();
  }
}
