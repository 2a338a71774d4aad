import type { MemoryRecord } from '../public/memory-record.ts';

/**
 * Where each conversation turn sits: user and assistant memories with a `metadata.session`
 * (string) and a whole-number `metadata.seq`, as `memory.session()` writes them (and
 * imported transcripts can). Recall reads a short turn together with the other speaker's
 * turns next to it ("yes, the blue one" means little without the question it answers).
 * One speaker's consecutive messages are separate statements and lend each other nothing
 * (a day of one user's notes borrowing from each other cost memdaily-zh-dev 6 points).
 * Other memories (facts, summaries, tool output) have no neighbours.
 */
export class TurnOrder {
  readonly #bySlot = new Map<string, Turn>();

  /** Registers a record if it is a turn. */
  add(record: Pick<MemoryRecord, 'id' | 'source' | 'metadata'>): void {
    const key = turnKey(record, 0);
    if (key !== undefined) this.#bySlot.set(key, { id: record.id, source: record.source });
  }

  /** Forgets a record's place (only if the place is still its own). */
  remove(record: MemoryRecord): void {
    const key = turnKey(record, 0);
    if (key !== undefined && this.#bySlot.get(key)?.id === record.id) this.#bySlot.delete(key);
  }

  /** Every registered turn as `[session \u0000 seq, id]` (for tests that check a forget left nothing). */
  *entries(): IterableIterator<[string, string]> {
    for (const [key, turn] of this.#bySlot) yield [key, turn.id];
  }

  /** The ids of the other speaker's turns just before and after this one in its session (none for a non-turn). */
  neighbours(record: MemoryRecord): readonly string[] {
    const before = turnKey(record, -1);
    if (before === undefined) return NONE; // not a turn (most memories): nothing to look up
    const ids: string[] = [];
    for (const key of [before, turnKey(record, 1)!]) {
      const turn = this.#bySlot.get(key);
      if (turn !== undefined && turn.id !== record.id && turn.source !== record.source) ids.push(turn.id);
    }
    return ids;
  }
}

/** A registered turn: its id and who said it. */
interface Turn {
  id: string;
  source: MemoryRecord['source'];
}

const NONE: readonly string[] = Object.freeze([]);

function turnKey(record: Pick<MemoryRecord, 'source' | 'metadata'>, offset: number): string | undefined {
  if (record.source !== 'user' && record.source !== 'assistant') return undefined;
  const { session, seq } = record.metadata;
  if (typeof session !== 'string' || typeof seq !== 'number' || !Number.isSafeInteger(seq)) return undefined;
  return `${session}\u0000${seq + offset}`;
}
