import type { MemoryRecord } from '../public/memory-record.ts';
import type { ColumnReader } from './record-columns.ts';

/**
 * One namespace's records by id, as a {@link NamespaceIndex} holds them. A restored index
 * keeps its records in the snapshot's columns and makes a record's object the first time
 * it is asked for (then keeps it): a search asks for a few hundred, and an object per
 * record made up front was ~250 bytes of heap a memory and most of the restore's
 * allocations (100k memories: ~25 MB, and the GC that goes with it; docs/benchmarks/2026-12-06-openfast.md).
 * Iteration gives the records not yet asked for first, then the others.
 */
export class RecordTable {
  /** Records set, or made from the columns when asked for. */
  readonly #records = new Map<string, MemoryRecord>();
  /** Records still only in the columns: id -> row. */
  readonly #rows = new Map<string, number>();
  readonly #columns: ColumnReader | undefined;

  /** @param columns restored records (their ids must be distinct) */
  constructor(columns?: ColumnReader) {
    this.#columns = columns;
    if (!columns) return;
    for (let i = 0; i < columns.size; i++) this.#rows.set(columns.id(i), i);
    if (this.#rows.size !== columns.size) throw new RangeError('restored records repeat an id');
  }

  get size(): number {
    return this.#records.size + this.#rows.size;
  }

  has(id: string): boolean {
    return this.#records.has(id) || this.#rows.has(id);
  }

  get(id: string): MemoryRecord | undefined {
    const record = this.#records.get(id);
    if (record !== undefined) return record;
    const row = this.#rows.get(id);
    if (row === undefined) return undefined;
    const made = this.#columns!.record(row);
    this.#rows.delete(id);
    this.#records.set(id, made);
    return made;
  }

  set(id: string, record: MemoryRecord): void {
    this.#rows.delete(id);
    this.#records.set(id, record);
  }

  /** Returns true when the record was there. */
  delete(id: string): boolean {
    return this.#rows.delete(id) || this.#records.delete(id);
  }

  /** Every record (those still in the columns made for the iteration only, not kept). */
  *values(): IterableIterator<MemoryRecord> {
    for (const row of this.#rows.values()) yield this.#columns!.record(row);
    yield* this.#records.values();
  }

  /** Every id. */
  keys(): IterableIterator<string> {
    return concat(this.#rows.keys(), this.#records.keys());
  }
}

function* concat<T>(a: Iterable<T>, b: Iterable<T>): IterableIterator<T> {
  yield* a;
  yield* b;
}
