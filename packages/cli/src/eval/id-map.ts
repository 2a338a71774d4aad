import { createHash } from 'node:crypto';

/** The id rule of `@zeromem/core` (checkId in packages/core/src/model/checks.ts). */
const CORE_ID = /^[A-Za-z0-9_.:-]+$/;
/** Prefixes of encoded ids; a data id that starts with one is encoded too, so nothing collides. */
const ENCODED = /^(?:x|h):/;

/**
 * Maps data ids to the ids stored in zeromem and back, per namespace.
 *
 * - An id core rejects (characters outside `A-Za-z0-9_.:-`, or too long) is stored as
 *   `x:` + base64url of its UTF-8 bytes, or `h:` + its SHA-256 when that is still too
 *   long; the reverse table maps it back when the run file is written.
 * - A memory whose content duplicates an earlier one in its namespace is not stored:
 *   core returns the existing record's id. The data id is kept as an alias of that
 *   record, and a ranking that returns the record lists the alias right after it: it is
 *   the same text, so retrieving one is retrieving the other.
 */
export class IdMap {
  readonly #maxLength: number;
  /** ns -> stored id -> data id, for ids that were encoded. */
  readonly #decoded = new Map<string, Map<string, string>>();
  /** ns -> stored id -> data ids of later duplicates, in write order. */
  readonly #aliases = new Map<string, Map<string, string[]>>();
  /** Data ids that had to be encoded. */
  encodedCount = 0;
  /** Data ids that became aliases of another record. */
  aliasCount = 0;

  constructor(maxIdLength = 128) {
    this.#maxLength = maxIdLength;
  }

  /** The id to store for a data id (the same string when core accepts it). */
  toStored(ns: string, dataId: string): string {
    if (dataId.length <= this.#maxLength && CORE_ID.test(dataId) && !ENCODED.test(dataId)) return dataId;
    let stored = `x:${Buffer.from(dataId, 'utf8').toString('base64url')}`;
    if (stored.length > this.#maxLength) stored = `h:${createHash('sha256').update(dataId, 'utf8').digest('hex')}`;
    let table = this.#decoded.get(ns);
    if (!table) this.#decoded.set(ns, (table = new Map()));
    if (!table.has(stored)) this.encodedCount++;
    table.set(stored, dataId);
    return stored;
  }

  /** The data id of a stored id. */
  toData(ns: string, storedId: string): string {
    return this.#decoded.get(ns)?.get(storedId) ?? storedId;
  }

  /** Notes that `dataId` was deduplicated into the stored record `storedId`. */
  addAlias(ns: string, storedId: string, dataId: string): void {
    let table = this.#aliases.get(ns);
    if (!table) this.#aliases.set(ns, (table = new Map()));
    const list = table.get(storedId) ?? [];
    if (!list.includes(dataId)) {
      list.push(dataId);
      this.aliasCount++;
    }
    table.set(storedId, list);
  }

  /** Data ids of a ranking of stored ids: each record's own id, then its aliases; no id twice. */
  toDataRanking(ns: string, storedIds: readonly string[]): string[] {
    const out: string[] = [];
    const seen = new Set<string>();
    const push = (id: string) => {
      if (!seen.has(id)) {
        seen.add(id);
        out.push(id);
      }
    };
    const aliases = this.#aliases.get(ns);
    for (const stored of storedIds) {
      push(this.toData(ns, stored));
      for (const alias of aliases?.get(stored) ?? []) push(alias);
    }
    return out;
  }
}
