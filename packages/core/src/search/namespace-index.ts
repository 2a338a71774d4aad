import type { MemoryRecord } from '../public/memory-record.ts';
import { Bm25Index } from './bm25-index.ts';
import type { ColumnReader } from './record-columns.ts';
import { RecordTable } from './record-table.ts';
import { TurnOrder } from './turn-order.ts';
import { VectorIndex } from './vector-index.ts';

/**
 * The in-memory search state of one namespace: BM25 over contents, packed vectors, and
 * the records themselves for filtering and ranking. Rebuilt from the store, kept current
 * by replaying the namespace's audit log after `lastSeq`.
 */
export class NamespaceIndex {
  readonly text: Bm25Index;
  readonly records: RecordTable;
  /** Conversation turns by session and position, for their neighbours. */
  readonly turns = new TurnOrder();
  vectors: VectorIndex | undefined;
  /** Audit sequence number up to which changes are applied. */
  lastSeq = 0;
  /** Changes (writes, vectors, access statistics) applied since the last snapshot: when to write a new one. */
  changesSinceSnapshot = 0;
  /** How many of {@link changesSinceSnapshot} are access notes: when they are all, a close stores only their heat (index-snapshot.ts `HeatRow`). */
  accessChangesSinceSnapshot = 0;
  /** Access notes since the index was made: the clock of {@link accessedSinceSnapshot}. */
  accessNotes = 0;
  /** The records noted as accessed since the last snapshot, each with {@link accessNotes} when it last was. */
  readonly accessedSinceSnapshot = new Map<string, number>();
  /** Records in the cold tier. */
  #cold = 0;
  /** Ids of keyed facts (their validity is checked per hit). */
  readonly #keyed = new Set<string>();
  /** No record expires before this (epoch ms): the earliest `expiresAt` ever indexed, a lower bound; Infinity while none had one. */
  #expiresNotBefore = Number.POSITIVE_INFINITY;

  constructor(text = new Bm25Index(), records = new RecordTable()) {
    this.text = text;
    this.records = records;
  }

  /**
   * An index from restored parts (see index-snapshot.ts); undefined when the text index
   * does not hold exactly these records (the caller checks the vectors' ids).
   */
  static restore(records: ColumnReader, text: Bm25Index, vectors: VectorIndex | undefined, lastSeq: number): NamespaceIndex | undefined {
    const index = new NamespaceIndex(text, new RecordTable(records));
    for (let i = 0; i < records.size; i++) {
      const id = records.id(i);
      // From the columns: no record object is made (record-table.ts).
      const { source, metadata, tier, key } = records.rest(i);
      if (source === 'user' || source === 'assistant') index.turns.add({ id, source, metadata: metadata! });
      index.#countFields(id, tier, key, records.expiresAt(i), 1);
      if (!text.has(id)) return undefined; // recall takes every text hit to be a record
    }
    if (index.records.size !== text.size) return undefined;
    if (vectors && vectors.size > index.records.size) return undefined;
    index.vectors = vectors;
    index.lastSeq = lastSeq;
    return index;
  }

  /** Adds or refreshes a record; returns true when its content is new to the index (it needs a vector). */
  upsert(record: MemoryRecord): boolean {
    const previous = this.records.get(record.id);
    if (previous && (previous.accessCount > record.accessCount || (previous.lastAccessedAt ?? 0) > (record.lastAccessedAt ?? 0))) {
      // Recalls noted here may not be flushed to the row yet: keep their heat.
      record = {
        ...record,
        accessCount: Math.max(previous.accessCount, record.accessCount),
        lastAccessedAt: Math.max(previous.lastAccessedAt ?? 0, record.lastAccessedAt ?? 0) || null,
      };
    }
    this.records.set(record.id, record);
    if (previous) {
      this.turns.remove(previous);
      this.#count(previous, -1);
    }
    this.turns.add(record);
    this.#count(record, 1);
    if (previous && previous.contentHash === record.contentHash) return false;
    if (previous) {
      this.text.remove(record.id);
      this.vectors?.remove(record.id);
    }
    this.text.addMany([{ id: record.id, content: searchText(record) }]);
    return true;
  }

  /** Adds many new records at once (ids not in the index). */
  addMany(records: MemoryRecord[]): void {
    for (const record of records) {
      this.records.set(record.id, record);
      this.turns.add(record);
      this.#count(record, 1);
    }
    this.text.addMany(records.map((record) => ({ id: record.id, content: searchText(record) })));
  }

  /**
   * Counts an access of these records in the index's copies at once (the store gets it in
   * a batch, see AccessTracker), so the next recall of this instance ranks with it.
   */
  noteAccess(ids: readonly string[], at: number): void {
    for (const id of ids) {
      const record = this.records.get(id);
      if (record) this.records.set(id, { ...record, accessCount: record.accessCount + 1, lastAccessedAt: at });
      this.accessedSinceSnapshot.set(id, ++this.accessNotes);
    }
    this.changesSinceSnapshot += ids.length;
    this.accessChangesSinceSnapshot += ids.length;
  }

  /** Removes a record and its vector. */
  remove(id: string): void {
    const record = this.records.get(id);
    if (!record) return;
    this.records.delete(id);
    this.turns.remove(record);
    this.#count(record, -1);
    this.text.remove(id);
    this.vectors?.remove(id);
  }

  /**
   * True when no record is cold (unless `includeCold`) and none can have expired at `now`:
   * then every indexed id is a live candidate, and recall without a filter need not check
   * each hit's record.
   */
  allLive(now: number, includeCold: boolean): boolean {
    return (includeCold || this.#cold === 0) && now < this.#expiresNotBefore;
  }

  /** True when the index holds a keyed fact: then recall checks each hit's validity. */
  hasKeyedFacts(): boolean {
    return this.#keyed.size > 0;
  }

  /** The ids of the keyed facts' versions held. */
  keyedFacts(): ReadonlySet<string> {
    return this.#keyed;
  }

  /** Keeps the cold and keyed counts and the expiry bound of {@link allLive} as a record comes (+1) or goes (−1). */
  #count(record: MemoryRecord, delta: 1 | -1): void {
    this.#countFields(record.id, record.tier, record.key, record.expiresAt, delta);
  }

  #countFields(id: string, tier: MemoryRecord['tier'] | undefined, key: string | null | undefined, expiresAt: number | null, delta: 1 | -1): void {
    if (tier === 'cold') this.#cold += delta;
    if (key) {
      if (delta > 0) this.#keyed.add(id);
      else this.#keyed.delete(id);
    }
    if (delta > 0 && expiresAt !== null && expiresAt < this.#expiresNotBefore) this.#expiresNotBefore = expiresAt;
  }

  /** Sets the vector of a record, if the record still has that content. */
  setVector(id: string, hash: string, vector: Float32Array | null): void {
    const record = this.records.get(id);
    if (!record || record.contentHash !== hash) return;
    if (!vector) {
      this.vectors?.remove(id);
      return;
    }
    if (this.vectors && this.vectors.dimension !== vector.length) this.vectors = undefined; // the model changed
    this.vectors ??= new VectorIndex(vector.length, Math.max(64, this.records.size));
    this.vectors.set(id, vector);
  }
}

/**
 * What BM25 indexes of a record: its content, and a keyed fact's key as words
 * (`work.employer` -> "work employer"): the key names what the fact is about, the words a
 * question uses ("Where does the user work?") when the fact only states the value.
 */
export function searchText(record: Pick<MemoryRecord, 'content' | 'key'>): string {
  return record.key ? `${record.content}\n${record.key.replace(/[._-]+/g, ' ')}` : record.content;
}
