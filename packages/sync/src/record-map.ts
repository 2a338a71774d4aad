import type { MemoryRecord } from '@zeromem/core';
import { canonicalJson, replicatedState, type ReplicatedChange } from '@zeromem/core/internal';
import type * as Y from 'yjs';
import { isNewer } from './newer-state.ts';
import type { RecordCodec, SharedValue } from './record-codec.ts';

/** What a local record state means for the document. */
export type LocalPlan =
  /** Nothing to change: the document already holds this state, or never held the record. */
  | { kind: 'same' }
  /** The document holds a forget of this incarnation: the forget wins, the store must follow. */
  | { kind: 'forgotten' }
  /** The document holds a newer state (see {@link isNewer}): it wins, the store must follow. */
  | { kind: 'outdated' }
  /** Apply inside a document transaction; `bytes` estimates the size it adds to the update. */
  | { kind: 'change'; apply: () => void; bytes: number };

/**
 * The shared document's records and their merge rules: `records` maps id to the record's
 * (possibly sealed) state, the newer state wins per id ({@link isNewer}); `forgotten` maps id to the forgotten
 * incarnation (its `createdAt`), so a forget wins over updates of what it forgot.
 */
export class RecordMap {
  readonly records: Y.Map<unknown>;
  readonly forgotten: Y.Map<unknown>;
  readonly #codec: RecordCodec;

  constructor(doc: Y.Doc, codec: RecordCodec) {
    this.records = doc.getMap('records');
    this.forgotten = doc.getMap('forgotten');
    this.#codec = codec;
  }

  /** How the document must change for this local state of `id` (`undefined`: the record is gone). */
  async planLocal(id: string, record: MemoryRecord | undefined): Promise<LocalPlan> {
    const shared = (await this.#current(id)) as { createdAt?: unknown; updatedAt?: unknown; version?: unknown } | undefined;
    if (!record) {
      if (!this.records.has(id)) return { kind: 'same' };
      // The tombstone names the forgotten incarnation, so an offline edit of it cannot bring it back.
      const tombstone = typeof shared?.createdAt === 'number' ? await this.#codec.encodeTombstone(id, shared.createdAt) : undefined;
      return {
        kind: 'change',
        bytes: id.length + 64,
        apply: () => {
          this.records.delete(id);
          if (tombstone !== undefined) this.forgotten.set(id, tombstone);
        },
      };
    }
    if ((await this.#tombstone(id)) === record.createdAt) return { kind: 'forgotten' };
    const state = replicatedState(record);
    if (shared !== undefined && canonicalJson(shared) === canonicalJson(state)) return { kind: 'same' };
    if (shared !== undefined && isNewer(shared, state)) return { kind: 'outdated' };
    const value = await this.#codec.encode(record);
    return {
      kind: 'change',
      bytes: id.length + encodedSize(value),
      apply: () => {
        this.records.set(id, value);
        if (this.forgotten.has(id)) this.forgotten.delete(id); // a new incarnation of a forgotten id
      },
    };
  }

  /**
   * The change the store must make for `id`, from the document. `raced` is true when the
   * value is an update of a forgotten incarnation: the store deletes it, and a writer
   * removes the stale value from the document too. Throws DECRYPTION_FAILED for a value
   * this replica cannot read.
   */
  async remoteChange(id: string): Promise<{ change: ReplicatedChange; raced: boolean }> {
    const value = this.records.get(id);
    if (value === undefined) return { change: { delete: id }, raced: false };
    const state = (await this.#codec.decode(id, value)) as { createdAt?: unknown };
    if (state.createdAt !== undefined && state.createdAt === (await this.#tombstone(id))) return { change: { delete: id }, raced: true };
    return { change: { put: state as never }, raced: false };
  }

  /** The shared state of a record, or undefined when there is none (or it cannot be read). */
  #current(id: string): Promise<unknown> {
    return this.records.has(id) ? this.#codec.decode(id, this.records.get(id)).catch(() => undefined) : Promise.resolve(undefined);
  }

  /** The forgotten incarnation of `id`, if a tombstone says so. */
  #tombstone(id: string): Promise<number | undefined> {
    return this.#codec.decodeTombstone(id, this.forgotten.get(id)).catch(() => undefined);
  }
}

/** The bytes a shared value takes in an update, near enough to cut updates by size. */
function encodedSize(value: SharedValue): number {
  if ('x' in value && value.x instanceof Uint8Array) return value.x.byteLength + value.n.byteLength + 16;
  return utf8.encode(JSON.stringify(value)).byteLength;
}

const utf8 = new TextEncoder();
