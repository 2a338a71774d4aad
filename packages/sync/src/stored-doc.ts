import { ZeromemError } from '@zeromem/core';
import type * as Y from 'yjs';
import type { DocStore } from './doc-store.ts';

/** Overwritten record values before the stored document is folded (a forget folds it at once). */
const COMPACT_AFTER_OVERWRITES = 100;
/** An overwrite that changed text folds the stored document this soon (at most this often). */
const COMPACT_TEXT_AFTER_MS = 1000;
/** Stored updates of a room before they are folded into one. */
const COMPACT_AFTER = 500;

/**
 * A share's document as kept in the local {@link DocStore} (the room's log in the memory's
 * store): its updates appended in order with the audit cursor they cover, and when to
 * fold them into one state ("compact") so that deleted or overwritten values leave the
 * disk: at once after a forget (online or not, local-changes.ts `eraseOffline`), within a
 * second after an overwrite that changed text, after 100 other overwrites or 500 stored
 * updates, and on close.
 */
export class StoredDoc {
  readonly #store: DocStore;
  readonly #room: string;
  readonly #doc: Y.Doc;
  readonly #report: (err: ZeromemError) => void;
  readonly #unsaved: Uint8Array[] = [];
  #persist: Promise<void> = Promise.resolve();
  /** The cursor last handed to the store: an idle step does not write it again. */
  #savedCursor: number | undefined;
  #needsCompaction = false;
  /** A {@link saveSoon} is waiting. */
  #saveQueued = false;
  /** Overwritten record values since the last compaction. */
  #overwrites = 0;
  /** An overwrite since the last compaction changed content, tags or metadata (or was sealed). */
  #textOverwritten = false;
  #compactedAt = 0;

  /** @param report receives storage failures (the next save stores everything again) */
  constructor(store: DocStore, room: string, doc: Y.Doc, report: (err: ZeromemError) => void) {
    this.#store = store;
    this.#room = room;
    this.#doc = doc;
    this.#report = report;
  }

  /** Loads the stored state into the document (as `origin`); returns the stored cursor. */
  async load(origin: unknown): Promise<number | undefined> {
    const cursor = await this.#store.load(this.#doc, origin);
    this.#savedCursor = cursor;
    return cursor;
  }

  /** A document update to store with the next save (or with the changes it carried, see {@link take}). */
  updated(update: Uint8Array): void {
    this.#unsaved.push(update);
  }

  /**
   * Hands over the unsaved updates, for the caller to store in the transaction that applies
   * the changes they carried (core's `replica.apply` with `docLog`): one commit, not two.
   * Give them back with {@link putBack} if that transaction failed.
   */
  take(): Uint8Array[] {
    return this.#unsaved.splice(0);
  }

  /** Updates {@link take}n whose transaction failed: they go with the next save. */
  putBack(updates: readonly Uint8Array[]): void {
    this.#unsaved.unshift(...updates);
  }

  /** Updates {@link take}n were stored; the room's log now holds `stored` updates. */
  logged(stored: number | undefined): void {
    if (stored !== undefined && stored > COMPACT_AFTER) this.#needsCompaction = true;
  }

  /** A record value was deleted: its content must leave the stored document now. */
  deleted(): void {
    this.#needsCompaction = true;
  }

  /** A record value was overwritten; `textChanged` when its content, tags or metadata may have changed. */
  overwritten(textChanged: boolean): void {
    if (++this.#overwrites >= COMPACT_AFTER_OVERWRITES) this.#needsCompaction = true;
    if (textChanged) this.#textOverwritten = true;
  }

  /**
   * {@link save} without a cursor once the running synchronous work is done: the loop that
   * put local changes into the document saves its cursor right after, and that save takes
   * these updates along (one commit, not two).
   */
  saveSoon(): void {
    if (this.#saveQueued) return;
    this.#saveQueued = true;
    queueMicrotask(() => {
      this.#saveQueued = false;
      this.save(undefined);
    });
  }

  /** Stores the unsaved updates and `cursor` (undefined: keep the stored one), in order, off the caller's path. */
  save(cursor: number | undefined): void {
    const updates = this.#unsaved.splice(0);
    if (cursor === this.#savedCursor) cursor = undefined;
    if (updates.length === 0 && cursor === undefined) return;
    if (cursor !== undefined) this.#savedCursor = cursor;
    this.#persist = this.#persist
      .then(() => this.#store.append(updates, cursor))
      .then((stored) => {
        if (stored > COMPACT_AFTER) this.#needsCompaction = true;
      })
      .catch((err: unknown) => {
        // Store it all again on the next step: the cursor, and the whole document by compaction.
        this.#savedCursor = undefined;
        this.#needsCompaction = true;
        this.#report(new ZeromemError('STORAGE_FAILED', `Storing the shared document of ${this.#room} failed.`, { cause: err }));
      });
  }

  /** Resolves when everything saved so far is stored. */
  stored(): Promise<void> {
    return this.#persist;
  }

  /** Folds the stored updates into one when a forget, an overwritten text or their number calls for it. */
  async compactIfDue(): Promise<void> {
    if (this.#needsCompaction || (this.#textOverwritten && Date.now() - this.#compactedAt >= COMPACT_TEXT_AFTER_MS)) await this.#compact();
  }

  /** On close: no old version outlives the session. */
  async compactIfOverwritten(): Promise<void> {
    if (this.#overwrites > 0 || this.#needsCompaction) await this.#compact();
  }

  async #compact(): Promise<void> {
    this.#needsCompaction = false;
    this.#textOverwritten = false;
    this.#overwrites = 0;
    this.#compactedAt = Date.now();
    await this.#store.compact(this.#doc);
  }
}
