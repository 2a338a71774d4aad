import type { Clock } from '../public/clock.ts';
import type { Layer } from '../public/memory-record.ts';
import type { StoragePort } from '../store/port.ts';
import { isExpired, type RecordRow } from '../store/row.ts';
import { cachedCount } from './count-cache.ts';
import { itemLine, turnRole } from './render.ts';
import type { Tokenizer } from '../public/tokenizer.ts';

/** The full-history part of one layer: tokens of its item lines (each with its newline) and how many items. */
export interface HistoryTally {
  tokens: number;
  items: number;
}

/** What is kept per live record: no text, only what the tallies need. */
interface Entry {
  layer: Layer;
  /** `metadata.session` when it is a string (what a `sessionId` matches). */
  session: string | undefined;
  tokens: number;
  expiresAt: number | null;
}

/** Audit entries after which reading the whole namespace again is cheaper than re-reading each changed record. */
const REBUILD_AFTER = 2000;
/** Rows read per request when counting a namespace from the store. */
const BUILD_PAGE = 2000;
/** Records counted over all namespaces kept (as the search indexes are bounded): the least recently read namespaces go beyond it. */
const MAX_ENTRIES = 250_000;

/** One namespace's counts, up to an audit seq and a clock time. */
class NamespaceCounts {
  lastSeq = 0;
  /** Expiry has been applied up to this time. */
  seenAt = Number.NEGATIVE_INFINITY;
  /** The earliest expiry among the entries: nothing expires before it. */
  nextExpiry = Number.POSITIVE_INFINITY;
  readonly entries = new Map<string, Entry>();
  /** By layer, and by `session\0<id>` for the session layer of one conversation. */
  readonly tallies = new Map<string, HistoryTally>();
  /** Ids to read again at the next catch-up (dropped by a purge that may have raced one). */
  readonly dirty = new Set<string>();

  set(id: string, entry: Entry | undefined): void {
    const old = this.entries.get(id);
    if (old) this.#add(old, -1);
    if (entry) {
      this.entries.set(id, entry);
      this.#add(entry, 1);
      if (entry.expiresAt !== null && entry.expiresAt < this.nextExpiry) this.nextExpiry = entry.expiresAt;
    } else this.entries.delete(id);
  }

  /** Drops the entries that expired by `now`; a scan only when the earliest expiry has passed. */
  expire(now: number): void {
    this.seenAt = now;
    if (now < this.nextExpiry) return;
    this.nextExpiry = Number.POSITIVE_INFINITY;
    for (const [id, entry] of this.entries) {
      if (isExpired(entry, now)) this.set(id, undefined);
      else if (entry.expiresAt !== null && entry.expiresAt < this.nextExpiry) this.nextExpiry = entry.expiresAt;
    }
  }

  #add(entry: Entry, sign: 1 | -1): void {
    const keys: string[] = [entry.layer];
    if (entry.layer === 'session' && entry.session !== undefined) keys.push(`session\u0000${entry.session}`);
    for (const key of keys) {
      const tally = this.tallies.get(key) ?? { tokens: 0, items: 0 };
      tally.tokens += sign * entry.tokens;
      tally.items += sign;
      if (tally.items === 0) this.tallies.delete(key);
      else this.tallies.set(key, tally);
    }
  }
}

/**
 * The full-history token count, kept per namespace instead of recounted: built once from
 * the store, then caught up before each use from the audit log (the change feed of every
 * instance and tab, as the search index is) and from the clock (expired records leave).
 * Each live record's line is counted with the tokenizer once, so the figure stays exactly
 * what counting every line again would give. It holds ids and numbers, never text; a
 * forget drops the forgotten records' entries at once ({@link HistoryCounts.purge}).
 */
export class HistoryCounts {
  readonly #store: StoragePort;
  readonly #clock: Clock;
  #tokenizer: Tokenizer | undefined;
  /** In order of last use, oldest first. */
  readonly #namespaces = new Map<string, Promise<NamespaceCounts>>();
  /** Entries per namespace as of its last catch-up, for the bound. */
  readonly #sizes = new Map<string, number>();

  readonly #maxEntries: number;

  constructor(store: StoragePort, clock: Clock, maxEntries = MAX_ENTRIES) {
    this.#store = store;
    this.#clock = clock;
    this.#maxEntries = maxEntries;
  }

  /**
   * The namespace's tallies, caught up to now: a function giving, for a layer (and for the
   * session layer optionally one `sessionId`), the tokens of its live records' lines and their number.
   */
  async read(namespaceKey: string, tokenizer: Tokenizer): Promise<(layer: Layer, sessionId?: string) => HistoryTally> {
    if (tokenizer !== this.#tokenizer) {
      this.#namespaces.clear();
      this.#sizes.clear();
      this.#tokenizer = tokenizer;
    }
    // One catch-up at a time per namespace: two interleaved ones could apply an older state last.
    const previous = this.#namespaces.get(namespaceKey);
    const next = (async () => this.#catchUp(namespaceKey, previous ? await previous.catch(() => undefined) : undefined, tokenizer))();
    this.#namespaces.delete(namespaceKey); // re-inserted last: the most recently used
    this.#namespaces.set(namespaceKey, next);
    const counts = await next;
    this.#bound(namespaceKey, counts.entries.size);
    const tallies = new Map([...counts.tallies].map(([key, tally]) => [key, { ...tally }]));
    return (layer, sessionId) => tallies.get(layer === 'session' && sessionId !== undefined ? `session\u0000${sessionId}` : layer) ?? { tokens: 0, items: 0 };
  }

  /**
   * After a deletion (forget, sweep, consolidate, import, replication): the entries of the
   * deleted records go now, and are read again at the next catch-up in case one raced it.
   */
  async purge(matches: (key: string, id?: string) => boolean): Promise<void> {
    for (const [key, pending] of this.#namespaces) {
      if (!matches(key)) continue;
      const counts = await pending.catch(() => undefined);
      if (!counts) continue;
      for (const id of [...counts.entries.keys()]) {
        if (!matches(key, id)) continue;
        counts.set(id, undefined);
        counts.dirty.add(id);
      }
    }
  }

  /** Drops the least recently read namespaces while the entries kept exceed the bound (never the one just read). */
  #bound(namespaceKey: string, size: number): void {
    this.#sizes.set(namespaceKey, size);
    let total = 0;
    for (const entries of this.#sizes.values()) total += entries;
    for (const key of this.#namespaces.keys()) {
      if (total <= this.#maxEntries || key === namespaceKey) break;
      total -= this.#sizes.get(key) ?? 0;
      this.#namespaces.delete(key);
      this.#sizes.delete(key);
    }
  }

  async #catchUp(ns: string, counts: NamespaceCounts | undefined, tokenizer: Tokenizer): Promise<NamespaceCounts> {
    const now = this.#clock.now();
    // A clock that went back can make expired records live again: count from the store.
    if (!counts || now < counts.seenAt) return this.#build(ns, now, tokenizer);
    const changes = await this.#store.read((tx) => tx.auditAfter(ns, counts.lastSeq, { limit: REBUILD_AFTER + 1 }));
    if (changes.length > REBUILD_AFTER) return this.#build(ns, now, tokenizer);
    const ids = [...new Set([...counts.dirty, ...changes.map((entry) => entry.id)])];
    if (ids.length) {
      const rows = await this.#store.read((tx) => tx.getRecords(ids.map((id) => [ns, id] as const)));
      ids.forEach((id, i) => counts.set(id, entryOf(rows[i], now, tokenizer)));
      counts.dirty.clear();
    }
    if (changes.length) counts.lastSeq = changes[changes.length - 1]!.seq!;
    counts.expire(now);
    return counts;
  }

  async #build(ns: string, now: number, tokenizer: Tokenizer): Promise<NamespaceCounts> {
    const counts = new NamespaceCounts();
    await this.#store.read(async (tx) => {
      counts.lastSeq = await tx.lastAuditSeq(ns);
      // Pages by primary key (one getAll each), not a cursor: a cursor step per row is slow in fake-indexeddb.
      let after: string | undefined;
      for (;;) {
        const rows = await tx.namespaceRecords(ns, { after, limit: BUILD_PAGE });
        for (const row of rows) {
          const entry = entryOf(row, now, tokenizer);
          if (entry) counts.set(row.id, entry);
        }
        if (rows.length < BUILD_PAGE) break;
        after = rows[rows.length - 1]!.id;
      }
    });
    counts.expire(now);
    return counts;
  }

  /** @internal For the forget tests: the ids of the records counted, by namespace key. */
  async countedIds(): Promise<Map<string, string[]>> {
    const held = new Map<string, string[]>();
    for (const [key, pending] of this.#namespaces) {
      const counts = await pending.catch(() => undefined);
      if (counts) held.set(key, [...counts.entries.keys()]);
    }
    return held;
  }
}

/** A live row's entry: its line as the full history renders it, counted (through the shared line cache). */
function entryOf(row: RecordRow | undefined, now: number, tokenizer: Tokenizer): Entry | undefined {
  if (!row || isExpired(row, now)) return undefined;
  const line = `${itemLine(row.layer, { content: row.content, role: turnRole(row.source) })}\n`;
  const session = row.metadata.session;
  return { layer: row.layer, session: typeof session === 'string' ? session : undefined, tokens: cachedCount(tokenizer, line), expiresAt: row.expiresAt };
}
