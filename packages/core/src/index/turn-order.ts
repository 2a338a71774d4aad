import type { MemoryRecord } from '../model/types.ts';

/**
 * Where each conversation turn sits: user and assistant memories with a `metadata.session`
 * (string) and a whole-number `metadata.seq`, as `memory.session()` writes them (and
 * imported transcripts can). Recall reads a short turn together with the turns next to
 * it ("yes, the blue one" means little alone). Other memories (facts, summaries, tool
 * output) have no neighbours.
 */
export class TurnOrder {
  readonly #bySlot = new Map<string, string>();

  /** Registers a record if it is a turn. */
  add(record: MemoryRecord): void {
    const key = turnKey(record, 0);
    if (key !== undefined) this.#bySlot.set(key, record.id);
  }

  /** Forgets a record's place (only if the place is still its own). */
  remove(record: MemoryRecord): void {
    const key = turnKey(record, 0);
    if (key !== undefined && this.#bySlot.get(key) === record.id) this.#bySlot.delete(key);
  }

  /** Every registered turn as `[session \u0000 seq, id]` (for tests that check a forget left nothing). */
  entries(): IterableIterator<[string, string]> {
    return this.#bySlot.entries();
  }

  /** The ids of the turns just before and after this one in its session (none for a non-turn). */
  neighbours(record: MemoryRecord): readonly string[] {
    const before = turnKey(record, -1);
    if (before === undefined) return NONE; // not a turn (most memories): nothing to look up
    const ids: string[] = [];
    for (const key of [before, turnKey(record, 1)!]) {
      const id = this.#bySlot.get(key);
      if (id !== undefined && id !== record.id) ids.push(id);
    }
    return ids;
  }
}

const NONE: readonly string[] = Object.freeze([]);

function turnKey(record: MemoryRecord, offset: number): string | undefined {
  if (record.source !== 'user' && record.source !== 'assistant') return undefined;
  const { session, seq } = record.metadata;
  if (typeof session !== 'string' || typeof seq !== 'number' || !Number.isSafeInteger(seq)) return undefined;
  return `${session}\u0000${seq + offset}`;
}
