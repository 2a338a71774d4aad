import type { DocLogAccess } from '@zeromem/core/internal';
import * as Y from 'yjs';

/**
 * The local copy of a shared document: the room's document log in the memory's own store
 * (core's `replicaOf(memory).docLog`; in Node the memory's one file, so its `secure_delete`
 * and the checkpoint after a deletion cover the document's bytes). Updates are appended as
 * they happen and folded into one on compaction, which also drops the bytes of forgotten
 * content (Yjs gc).
 */
export class DocStore {
  readonly #log: DocLogAccess;
  readonly #room: string;

  constructor(log: DocLogAccess, room: string) {
    this.#log = log;
    this.#room = room;
  }

  /** Applies the stored updates to `doc` (as `origin`); returns the cursor, or undefined for a room never shared here. */
  async load(doc: Y.Doc, origin: unknown): Promise<number | undefined> {
    const { updates, cursor } = await this.#log.load(this.#room);
    Y.transact(doc, () => {
      for (const update of updates) Y.applyUpdate(doc, update);
    }, origin);
    return cursor;
  }

  /** Appends updates and, when given, moves the cursor, in one transaction; resolves with how many updates are stored. */
  append(updates: Uint8Array[], cursor: number | undefined): Promise<number> {
    return this.#log.append(this.#room, updates, cursor);
  }

  /** Replaces the stored updates with one encoding of `doc` (whose gc dropped deleted content). */
  compact(doc: Y.Doc): Promise<void> {
    return this.#log.compact(this.#room, Y.encodeStateAsUpdate(doc));
  }
}
