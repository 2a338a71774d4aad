import { Dexie, liveQuery, type Collection, type ObservabilitySet, type Table, type Transaction } from 'dexie';
import type { Layer, Namespace } from '../../public/memory-record.ts';
import { MemoryDatabase, storedVectorRow, vectorRowOf, type DocCursorRow, type DocUpdateRow, type StoredVectorRow } from './database.ts';
import type { DatabaseOptions } from '../../public/options.ts';
import { heatKey, type AuditRow, type DocLog, type OrderedQuery, type ReadTransaction, type RecordKey, type StoragePort, type StoredSnapshot, type VectorRow, type WriteTransaction } from '../port.ts';
import { withSortKeys, type RecordRow } from '../row.ts';
import { position, streamPrefix, streamRange } from '../sort-keys.ts';
import { ZeromemError } from '../../public/errors.ts';
import { withStorage } from './storage-errors.ts';

/**
 * The storage port's Dexie engine: IndexedDB in browsers and Electron's renderer, any
 * `IDBFactory` elsewhere (fake-indexeddb in tests, the Node store on disk). The schema is
 * {@link MemoryDatabase}'s; this file is the only one above it that speaks Dexie.
 */
export class DexieStore implements StoragePort {
  readonly #db: MemoryDatabase;

  constructor(db: MemoryDatabase) {
    this.#db = db;
  }

  get name(): string {
    return this.#db.name;
  }

  read<T>(fn: (tx: ReadTransaction) => Promise<T>): Promise<T> {
    return withStorage(() => this.#db.transaction('r', this.#db.tables, (trans) => fn(new DexieTransaction(trans))));
  }

  write<T>(fn: (tx: WriteTransaction) => Promise<T>): Promise<T> {
    return withStorage(() => this.#db.transaction('rw', this.#db.tables, (trans) => fn(new DexieTransaction(trans))));
  }

  observe<T>(query: () => Promise<T>, observer: { next: (value: T) => void; error: (err: unknown) => void }): () => void {
    // liveQuery notes the ranges the query reads and runs it again when a write (this
    // process's, another tab's) touches one of them.
    const subscription = liveQuery(query).subscribe({ next: (value) => observer.next(value), error: (err) => observer.error(err) });
    return () => subscription.unsubscribe();
  }

  onAuditWrites(listener: () => void): () => void {
    const prefix = `idb://${this.#db.name}/${this.#db.audit.name}/`;
    const handler = (parts: ObservabilitySet): void => {
      if (Object.keys(parts).some((part) => part.startsWith(prefix))) listener();
    };
    // Dexie's `storagemutated` carries this process's commits and, in browsers, other tabs'.
    Dexie.on('storagemutated', handler);
    return () => Dexie.on.storagemutated.unsubscribe(handler);
  }

  close(): void {
    this.#db.close();
  }
}

/**
 * Opens (creating or upgrading) the IndexedDB database `name` and its Dexie engine.
 * @throws ZeromemError STORAGE_FAILED when the database cannot be opened, or there is no IndexedDB (none given, none global)
 */
export async function openDexieStore(name: string, options: DatabaseOptions = {}): Promise<DexieStore> {
  if (!options.indexedDB && typeof indexedDB === 'undefined') {
    throw new ZeromemError('STORAGE_FAILED', 'No IndexedDB here. In Node, import "fake-indexeddb/auto" first or pass { indexedDB, IDBKeyRange }.');
  }
  const db = new MemoryDatabase(name, options);
  await withStorage(() => db.open());
  return new DexieStore(db);
}

/**
 * The transaction methods over one Dexie transaction. Its tables are the transaction's
 * own (`trans.table`), so every request goes to it even where an `await` between two
 * requests left Dexie's zone (which would otherwise send the next request to a transaction
 * of its own and let this one commit early).
 */
class DexieTransaction implements WriteTransaction {
  readonly #records: Table<RecordRow, [string, string]>;
  readonly #audit: Table<AuditRow, number>;
  readonly #vectors: Table<StoredVectorRow, [string, string]>;
  readonly #snapshots: Table<StoredSnapshot, string>;
  readonly #docUpdates: Table<DocUpdateRow, number>;
  readonly #docCursors: Table<DocCursorRow, string>;

  constructor(trans: Transaction) {
    this.#records = trans.table('records');
    this.#audit = trans.table('audit');
    this.#vectors = trans.table('vectors');
    this.#snapshots = trans.table('indexSnapshots');
    this.#docUpdates = trans.table('docUpdates');
    this.#docCursors = trans.table('docCursors');
  }

  getRecords(keys: readonly RecordKey[]): Promise<Array<RecordRow | undefined>> {
    return this.#records.bulkGet(keys as Array<[string, string]>);
  }

  namespaceRecords(ns: string, page: { after?: string | undefined; limit?: number | undefined } = {}): Promise<RecordRow[]> {
    const rows = this.#ofNamespace(ns, page.after);
    return (page.limit === undefined ? rows : rows.limit(page.limit)).toArray();
  }

  allRecords(page: { after?: RecordKey | undefined; limit: number }): Promise<RecordRow[]> {
    const rows = page.after ? this.#records.where('[ns+id]').above(page.after) : this.#records.orderBy('[ns+id]');
    return rows.limit(page.limit).toArray();
  }

  userRecords(userId: string): Promise<RecordRow[]> {
    return this.#records.where('userId').equals(userId).toArray();
  }

  /**
   * One `anyOf` cursor is fastest while a namespace holds fewer rows than the batch has
   * keys; against a large namespace a cursor that jumps from key to key gets slower with
   * every row (badly so in fake-indexeddb: a 100k import took minutes per 10k), so then
   * each key is looked up on its own.
   */
  async recordsByContentHash(keys: readonly (readonly [ns: string, contentHash: string])[]): Promise<RecordRow[]> {
    const perNamespace = new Map<string, Array<[string, string]>>();
    for (const k of keys) {
      const group = perNamespace.get(k[0]);
      if (group) group.push([k[0], k[1]]);
      else perNamespace.set(k[0], [[k[0], k[1]]]);
    }
    const byHash = this.#records.where('[ns+contentHash]');
    const found: RecordRow[] = [];
    for (const [ns, nsKeys] of perNamespace) {
      // A few keys: look them up directly (counting the namespace would cost more).
      const stored = nsKeys.length <= 16 ? Number.POSITIVE_INFINITY : await this.countRecords(ns);
      if (stored === 0) continue;
      if (stored < nsKeys.length) found.push(...(await byHash.anyOf(nsKeys).toArray()));
      else for (const rows of await Promise.all(nsKeys.map((k) => this.#records.where('[ns+contentHash]').equals(k).toArray()))) found.push(...rows);
    }
    return found;
  }

  async contentHashesInUse(contentHashes: readonly string[]): Promise<Set<string>> {
    // One index look-up per hash, not `anyOf`: on fake-indexeddb (Node tests, the eval) a
    // cursor over thousands of keys walked the index again per key, and the eval's writes
    // fell from 559 to ~80 memories/s over LongMemEval's 58k memories.
    const held = await Promise.all(contentHashes.map((hash) => this.#records.where('contentHash').equals(hash).count()));
    return new Set(contentHashes.filter((_, i) => held[i]! > 0));
  }

  recordHashes(): Promise<Array<{ ns: string; id: string; contentHash: string }>> {
    const found: Array<{ ns: string; id: string; contentHash: string }> = [];
    // Keys only: reading every row on each open took seconds at 100k records.
    return this.#records
      .orderBy('contentHash')
      .eachKey((hash, cursor) => {
        const [ns, id] = cursor.primaryKey as [string, string];
        found.push({ ns, id, contentHash: hash as string });
      })
      .then(() => found);
  }

  expiredRecords(now: number, limit: number): Promise<RecordRow[]> {
    return this.#records.where('expiresAt').belowOrEqual(now).limit(limit).toArray();
  }

  countRecords(ns?: string): Promise<number> {
    return ns === undefined ? this.#records.count() : this.#ofNamespace(ns).count();
  }

  countExpired(ns: string, now: number): Promise<number> {
    return this.#records.where('[ns+expiresAt]').between([ns, 0], [ns, now], true, true).count();
  }

  orderedRecords(query: OrderedQuery, accept?: (row: RecordRow) => boolean, limit?: number): Promise<RecordRow[]> {
    let rows = orderedCollection(this.#records, query);
    if (accept) rows = rows.filter(accept);
    return (limit === undefined ? rows : rows.limit(limit)).toArray();
  }

  recordsByKey(ns: string, key: string): Promise<RecordRow[]> {
    return this.#records.where('[ns+key]').equals([ns, key]).toArray();
  }

  keyedRecords(ns: string): Promise<RecordRow[]> {
    return this.#records.where('[ns+key]').between([ns, Dexie.minKey], [ns, Dexie.maxKey]).toArray();
  }

  firstNamespace(range: { from: string; fromExclusive?: boolean; to: string }): Promise<{ ns: string; namespace: Namespace } | undefined> {
    const lower = [range.from, range.fromExclusive ? Dexie.maxKey : Dexie.minKey];
    return this.#records
      .where('[ns+id]')
      .between(lower, [range.to, Dexie.maxKey], true, true)
      .first()
      .then((row) => row && { ns: row.ns, namespace: row.namespace });
  }

  auditAfter(ns: string, after: number, options: { limit?: number | undefined; localOnly?: boolean | undefined } = {}): Promise<AuditRow[]> {
    let rows = this.#audit.where('[ns+seq]').between([ns, after], [ns, Dexie.maxKey], false, true);
    if (options.localOnly) rows = rows.filter((row) => !row.replicated);
    return (options.limit === undefined ? rows : rows.limit(options.limit)).toArray();
  }

  lastAuditSeq(ns: string): Promise<number> {
    return this.#audit
      .where('[ns+seq]')
      .between([ns, Dexie.minKey], [ns, Dexie.maxKey])
      .last()
      .then((row) => row?.seq ?? 0);
  }

  getVectors(model: string, hashes: readonly string[]): Promise<Array<VectorRow | undefined>> {
    return this.#vectors.bulkGet(hashes.map((hash) => [model, hash] as [string, string])).then((rows) => rows.map((row) => row && vectorRowOf(row)));
  }

  countVectors(model: string): Promise<number> {
    return this.#ofModel(model).count();
  }

  vectorHashes(model: string): Promise<string[]> {
    return this.#ofModel(model)
      .primaryKeys()
      .then((keys) => keys.map(([, hash]) => hash));
  }

  getSnapshot(ns: string): Promise<StoredSnapshot | undefined> {
    return this.#snapshots.get(ns);
  }

  async getDocLog(room: string): Promise<DocLog> {
    // `++seq` keys ascend in append order, and the room index lists a room's rows by key.
    const rows = await this.#docUpdates.where('room').equals(room).toArray();
    return { updates: rows.map((row) => row.update), cursor: (await this.#docCursors.get(room))?.cursor };
  }

  async putRecords(rows: readonly RecordRow[]): Promise<void> {
    if (rows.length) await this.#records.bulkPut(rows.map(withSortKeys));
  }

  async deleteRecords(keys: readonly RecordKey[]): Promise<void> {
    if (keys.length) await this.#records.bulkDelete(keys as Array<[string, string]>);
  }

  async appendAudit(rows: readonly AuditRow[]): Promise<number[]> {
    if (rows.length === 0) return [];
    // A given `seq` would be taken as the key: the store numbers the rows.
    const fresh = rows.map((row) => (row.seq === undefined ? row : withoutSeq(row)));
    return this.#audit.bulkAdd(fresh, { allKeys: true });
  }

  async putVectors(rows: readonly VectorRow[]): Promise<void> {
    if (rows.length) await this.#vectors.bulkPut(rows.map(storedVectorRow));
  }

  async deleteVectors(contentHash: string): Promise<void> {
    await this.#vectors.where('hash').equals(contentHash).delete();
  }

  async putSnapshot(row: StoredSnapshot): Promise<void> {
    await this.#snapshots.put(row);
  }

  async deleteSnapshots(namespaceKeys: Iterable<string>): Promise<void> {
    const keys = [...new Set(namespaceKeys)].flatMap((ns) => [ns, heatKey(ns)]);
    if (keys.length) await this.#snapshots.bulkDelete(keys);
  }

  async appendDocLog(room: string, updates: readonly Uint8Array[], cursor?: number): Promise<number> {
    if (updates.length) await this.#docUpdates.bulkAdd(updates.map((update) => ({ room, update })));
    if (cursor !== undefined) await this.#docCursors.put({ room, cursor });
    return this.#docUpdates.where('room').equals(room).count();
  }

  async compactDocLog(room: string, update: Uint8Array): Promise<void> {
    await this.#docUpdates.where('room').equals(room).delete();
    await this.#docUpdates.add({ room, update });
  }

  #ofNamespace(ns: string, after?: string): Collection<RecordRow, [string, string]> {
    return this.#records.where('[ns+id]').between([ns, after ?? Dexie.minKey], [ns, Dexie.maxKey], after === undefined, true);
  }

  #ofModel(model: string): Collection<StoredVectorRow, [string, string]> {
    return this.#vectors.where('[model+hash]').between([model, Dexie.minKey], [model, Dexie.maxKey]);
  }
}

function withoutSeq({ seq: _seq, ...row }: AuditRow): AuditRow {
  return row;
}

/**
 * The rows of one ordered query: a range of a sort-key stream (the whole namespace or one
 * tag, store/sort-keys.ts) or of one layer's index, in the query's direction.
 */
function orderedCollection(records: Table<RecordRow, [string, string]>, query: OrderedQuery): Collection<RecordRow> {
  const from = query.from ?? 0;
  const to = query.to ?? Number.POSITIVE_INFINITY;
  let collection: Collection<RecordRow>;
  if (query.layer !== undefined) {
    const bounds = layerRange(query.ns, query.layer, from, to, query.order, query.after);
    const index = query.orderBy === 'createdAt' ? '[ns+layer+createdAt+id]' : '[ns+layer+updatedAt+id]';
    collection = records.where(index).between(bounds.lower, bounds.upper, bounds.includeLower, bounds.includeUpper);
  } else {
    const after = query.after && position(query.after.time, query.after.id);
    const bounds = streamRange(streamPrefix(query.ns, query.tag ?? ''), from, to, query.order, after);
    const index = query.orderBy === 'createdAt' ? 'byCreated' : 'byUpdated';
    collection = records.where(index).between(bounds.lower, bounds.upper, bounds.includeLower, bounds.includeUpper);
  }
  return query.order === 'desc' ? collection.reverse() : collection;
}

/** The key range of one layer's index between two times (`to` exclusive), excluding the position `after`. */
function layerRange(ns: string, layer: Layer, from: number, to: number, order: 'asc' | 'desc', after: { time: number; id: string } | undefined) {
  let lower: unknown[] = [ns, layer, from, Dexie.minKey];
  let upper: unknown[] = Number.isFinite(to) ? [ns, layer, to, Dexie.minKey] : [ns, layer, Dexie.maxKey];
  let includeLower = true;
  let includeUpper = false;
  if (after !== undefined) {
    if (order === 'asc' && after.time >= from) {
      lower = [ns, layer, after.time, after.id];
      includeLower = false;
    }
    if (order === 'desc' && after.time < to) {
      upper = [ns, layer, after.time, after.id];
      includeUpper = false;
    }
  }
  return { lower, upper, includeLower, includeUpper };
}
