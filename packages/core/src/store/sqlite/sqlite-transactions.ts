/**
 * The port's transactions over one SQLite connection (sqlite-engine.ts opens and ends the
 * SQLite transaction they run in). Every method is one or a few prepared statements on
 * the tables of sqlite-schema.ts; pages of ordered rows are index range scans.
 */
import { ZeromemError } from '../../public/errors.ts';
import { LAYERS } from '../../model/types.ts';
import type { Namespace } from '../../public/memory-record.ts';
import { heatKey, type AuditRow, type DocLog, type OrderedQuery, type ReadTransaction, type RecordKey, type StoredSnapshot, type VectorRow, type WriteTransaction } from '../port.ts';
import type { RecordRow } from '../row.ts';
import type { Connection } from './sqlite-connection.ts';
import { contentHashNow } from '../../model/content-hash.ts';
import { namespaceKey } from '../../model/namespace.ts';
import { deleteSnapshotBody, getSnapshotBody, putSnapshotBody } from './snapshot-pieces.ts';
import { AUDIT_COLUMN_COUNT, RECORD_COLUMNS, RECORD_COLUMN_COUNT, auditOf, putAuditColumns, putRecordColumns, recordOf, snapshotBody, snapshotOf, vectorBlob, vectorOf, hashKey, hashOfKey, type RecordColumns } from './sqlite-rows.ts';
import { storageError } from './sqlite-file.ts';

const SELECT_RECORDS = `SELECT ${RECORD_COLUMNS} FROM records`;
const AUDIT_COLUMNS = 'seq, ns, op, id, at, actor, rest';
/** `LIMIT -1` is SQLite's "no limit". */
const NO_LIMIT = -1;
/** Rows read per page while `accept` filters an ordered query: the first page small (a short list), then larger. */
const FIRST_PAGE = 32;
const LARGEST_PAGE = 2048;

type AuditColumns = [number, string, string, string, number, string, string];

/** What a write transaction did, for what follows its commit (sqlite-engine.ts). */
export interface WriteEffects {
  /** It appended to the audit log. */
  audited: boolean;
  /** It deleted rows, or replaced a record's text: the old bytes must leave the file's old pages and the WAL too (a checkpoint). */
  deleted: boolean;
  /** It asked to delete records (set before the statement runs, so also when that failed): on a full disk it may use the reserve (sqlite-reserve.ts). */
  deleting: boolean;
}

/** Per writer connection: how many record updates replaced text so far ({@link watchTextReplacements}). */
const textReplacements = new WeakMap<Connection, { count: number }>();

/**
 * Makes the writer connection count the record updates that replace text (content, tags or
 * metadata): a temporary trigger (this connection's own, never stored in the file, so other
 * processes and releases never see it) calls a function of this process. An update rewrites
 * the row in place, `secure_delete` zeroes the old cell in the new copy of the page, but the
 * old copy stays in the file until a checkpoint (and in the WAL until it is truncated), as a
 * deleted row's does: so such a write is checkpointed like a deletion (`historyDepth: 0`
 * would otherwise keep the replaced text on disk until the next deletion or close). Inserts
 * never run the trigger, so imports pay nothing for it. Call once, outside a transaction.
 */
export function watchTextReplacements(connection: Connection): void {
  const counter = { count: 0 };
  connection.db.function('zeromem_text_replaced', () => {
    counter.count++;
    return null;
  });
  connection.db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS zeromem_text_replaced AFTER UPDATE OF content, tags, rest ON main.records
    WHEN OLD.content IS NOT NEW.content OR OLD.tags IS NOT NEW.tags OR (OLD.rest IS NOT NEW.rest AND json_extract(OLD.rest, '$.metadata') IS NOT json_extract(NEW.rest, '$.metadata'))
    BEGIN SELECT zeromem_text_replaced(); END`);
  textReplacements.set(connection, counter);
}

/** The reads of a transaction on `connection`; usable only while the transaction runs. */
export class SqliteReadTransaction implements ReadTransaction {
  protected readonly connection: Connection;
  readonly #checkContent: boolean;
  #open = true;

  /** @param checkContent check each record read against its content hash ({@link checkedRecordOf}) */
  constructor(connection: Connection, checkContent: boolean) {
    this.connection = connection;
    this.#checkContent = checkContent;
  }

  /** Ends the transaction's use: later calls (a caller that kept the transaction) fail. */
  end(): void {
    this.#open = false;
  }

  /** Runs one storage step: a closed transaction or a SQLite failure is a coded error. */
  protected run<T>(during: 'read' | 'write', step: () => T): Promise<T> {
    if (!this.#open) return Promise.reject(new ZeromemError('STORAGE_FAILED', 'A transaction of this memory was used after it ended (a bug in the caller).', {}));
    try {
      return Promise.resolve(step());
    } catch (err) {
      return Promise.reject(storageError(err, this.connection.path, during));
    }
  }

  /**
   * The row of a record's columns. A read checks its content against its hash
   * ({@link checkedRecordOf}); a write does not, so a forget (or an update of the content)
   * of a damaged record still goes through.
   */
  #recordOf(columns: RecordColumns): RecordRow {
    return this.#checkContent ? checkedRecordOf(columns, this.connection.path) : recordOf(columns);
  }

  protected records(sql: string, ...params: unknown[]): RecordRow[] {
    return (this.connection.raw(sql).all(...params) as RecordColumns[]).map((columns) => this.#recordOf(columns));
  }

  getRecords(keys: readonly RecordKey[]): Promise<Array<RecordRow | undefined>> {
    return this.run('read', () => {
      const get = this.connection.raw(`${SELECT_RECORDS} WHERE ns = ? AND id = ?`);
      return keys.map(([ns, id]) => {
        const columns = get.get(ns, id) as RecordColumns | undefined;
        return columns && this.#recordOf(columns);
      });
    });
  }

  namespaceRecords(ns: string, page: { after?: string; limit?: number } = {}): Promise<RecordRow[]> {
    return this.run('read', () =>
      page.after === undefined
        ? this.records(`${SELECT_RECORDS} WHERE ns = ? ORDER BY id LIMIT ?`, ns, page.limit ?? NO_LIMIT)
        : this.records(`${SELECT_RECORDS} WHERE ns = ? AND id > ? ORDER BY id LIMIT ?`, ns, page.after, page.limit ?? NO_LIMIT),
    );
  }

  allRecords(page: { after?: RecordKey; limit: number }): Promise<RecordRow[]> {
    return this.run('read', () =>
      page.after === undefined
        ? this.records(`${SELECT_RECORDS} ORDER BY ns, id LIMIT ?`, page.limit)
        : this.records(`${SELECT_RECORDS} WHERE (ns, id) > (?, ?) ORDER BY ns, id LIMIT ?`, page.after[0], page.after[1], page.limit),
    );
  }

  userRecords(userId: string): Promise<RecordRow[]> {
    // A user's namespace keys are `u=<user>` and `u=<user>;...` (model/namespace.ts; the user
    // is URI-encoded, so holds no ';'): two ranges of the primary key, no index of its own.
    const [own, from, to] = userKeyRanges(userId);
    // A compound SELECT: SQLite merges the two ordered scans (an OR would sort every row).
    return this.run('read', () => this.records(`${SELECT_RECORDS} WHERE ns = ? UNION ALL ${SELECT_RECORDS} WHERE ns > ? AND ns < ? ORDER BY 1, 2`, own, from, to));
  }

  recordsByContentHash(keys: readonly (readonly [ns: string, contentHash: string])[]): Promise<RecordRow[]> {
    return this.run('read', () => {
      // A batch's pairs in one statement (an index search per pair), the rest one by one.
      const found: RecordRow[] = [];
      let i = 0;
      if (keys.length >= ROWS_PER_STATEMENT) {
        const params = new Array<unknown>(2 * ROWS_PER_STATEMENT);
        for (; i + ROWS_PER_STATEMENT <= keys.length; i += ROWS_PER_STATEMENT) {
          for (let j = 0; j < ROWS_PER_STATEMENT; j++) {
            params[2 * j] = keys[i + j]![1];
            params[2 * j + 1] = keys[i + j]![0];
          }
          for (const row of this.records(BY_HASH.batch, ...params)) found.push(row);
        }
      }
      for (; i < keys.length; i++) for (const row of this.records(BY_HASH.one, keys[i]![1], keys[i]![0])) found.push(row);
      return found;
    });
  }

  contentHashesInUse(contentHashes: readonly string[]): Promise<Set<string>> {
    return this.run('read', () => {
      // A statement per hash: on a store's records index that took less CPU than 64 hashes an `IN (...)` (10k hashes: 20-30 against 30-44 ms).
      const held = this.connection.pluck('SELECT 1 FROM records WHERE content_hash = ? LIMIT 1');
      return new Set(contentHashes.filter((hash) => held.get(hash) !== undefined));
    });
  }

  recordHashes(): Promise<Array<{ ns: string; id: string; contentHash: string }>> {
    return this.run('read', () =>
      (this.connection.raw('SELECT ns, id, content_hash FROM records').all() as Array<[string, string, string]>).map(([ns, id, contentHash]) => ({ ns, id, contentHash })),
    );
  }

  expiredRecords(now: number, limit: number): Promise<RecordRow[]> {
    return this.run('read', () => this.records(`${SELECT_RECORDS} WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at, ns, id LIMIT ?`, now, limit));
  }

  countRecords(ns?: string): Promise<number> {
    return this.run('read', () =>
      ns === undefined ? (this.connection.pluck('SELECT count(*) FROM records').get() as number) : (this.connection.pluck('SELECT count(*) FROM records WHERE ns = ?').get(ns) as number),
    );
  }

  countExpired(ns: string, now: number): Promise<number> {
    return this.run('read', () => this.connection.pluck('SELECT count(*) FROM records INDEXED BY records_by_expiry WHERE expires_at IS NOT NULL AND expires_at <= ? AND ns = ?').get(now, ns) as number);
  }

  orderedRecords(query: OrderedQuery, accept?: (row: RecordRow) => boolean, limit?: number): Promise<RecordRow[]> {
    return this.run('read', () => {
      const out: RecordRow[] = [];
      const wanted = limit ?? Infinity;
      let after = query.after;
      // Without a filter one page holds the answer; with one, pages grow until enough rows were accepted.
      for (let size = accept ? Math.min(Math.max(wanted * 2, FIRST_PAGE), LARGEST_PAGE) : Number.isFinite(wanted) ? wanted : NO_LIMIT; ; size = Math.min(size * 4, LARGEST_PAGE)) {
        const statement = this.connection.raw(orderedSql(query, after !== undefined));
        const page = statement.all(...orderedParams(query, after), size) as RecordColumns[];
        for (const columns of page) {
          const row = this.#recordOf(columns);
          if (accept && !accept(row)) continue;
          out.push(row);
          if (out.length >= wanted) return out;
        }
        if (!accept || page.length < size) return out;
        const last = page.at(-1)!;
        after = { time: query.orderBy === 'createdAt' ? last[4] : last[5], id: last[1] };
      }
    });
  }

  recordsByKey(ns: string, key: string): Promise<RecordRow[]> {
    return this.run('read', () => this.records(`${SELECT_RECORDS} INDEXED BY records_by_key WHERE ns = ? AND fact_key = ? ORDER BY id`, ns, key));
  }

  keyedRecords(ns: string): Promise<RecordRow[]> {
    return this.run('read', () => this.records(`${SELECT_RECORDS} INDEXED BY records_by_key WHERE ns = ? AND fact_key IS NOT NULL ORDER BY fact_key, id`, ns));
  }

  firstNamespace(range: { from: string; fromExclusive?: boolean; to: string }): Promise<{ ns: string; namespace: Namespace } | undefined> {
    return this.run('read', () => {
      const row = this.connection
        .raw(`SELECT ns, rest FROM records WHERE ns ${range.fromExclusive ? '>' : '>='} ? AND ns <= ? ORDER BY ns LIMIT 1`)
        .get(range.from, range.to) as [string, string] | undefined;
      return row && { ns: row[0], namespace: (JSON.parse(row[1]) as { namespace: Namespace }).namespace };
    });
  }

  auditAfter(ns: string, after: number, options: { limit?: number; localOnly?: boolean } = {}): Promise<AuditRow[]> {
    return this.run('read', () => {
      const local = options.localOnly ? " AND json_extract(rest, '$.replicated') IS NULL" : '';
      const sql = `SELECT ${AUDIT_COLUMNS} FROM audit WHERE ns = ? AND seq > ?${local} ORDER BY seq LIMIT ?`;
      return (this.connection.raw(sql).all(ns, after, options.limit ?? NO_LIMIT) as AuditColumns[]).map(auditOf);
    });
  }

  lastAuditSeq(ns: string): Promise<number> {
    return this.run('read', () => (this.connection.pluck('SELECT max(seq) FROM audit WHERE ns = ?').get(ns) as number | null) ?? 0);
  }

  getVectors(model: string, hashes: readonly string[]): Promise<Array<VectorRow | undefined>> {
    return this.run('read', () => {
      const id = modelId(this.connection, model);
      if (id === undefined) return hashes.map(() => undefined);
      // Many keys a statement: a chunk of the embedding queue looks up 1,024 hashes, mostly not stored yet.
      const select = this.connection.raw(`SELECT hash, vector FROM vectors WHERE model = ? AND hash IN (${LOOKUP_PARAMS})`);
      const blobs = new Map<string, Buffer | null>(); // null: a stored "could not embed"
      for (const batch of lookupBatches(hashes.map(hashKey))) {
        for (const [key, blob] of select.all(id, ...batch) as Array<[Buffer | string, Buffer | null]>) blobs.set(hashOfKey(key), blob);
      }
      return hashes.map((hash) => {
        const blob = blobs.get(hash);
        if (blob === undefined) return undefined;
        try {
          return vectorOf(model, hash, blob);
        } catch (err) {
          throw storageError(err, this.connection.path, 'read', true); // bytes no release writes: damage
        }
      });
    });
  }

  countVectors(model: string): Promise<number> {
    return this.run('read', () => this.connection.pluck('SELECT count(*) FROM vectors WHERE model = ?').get(modelId(this.connection, model) ?? null) as number);
  }

  vectorHashes(model: string): Promise<string[]> {
    return this.run('read', () => (this.connection.pluck('SELECT hash FROM vectors WHERE model = ?').all(modelId(this.connection, model) ?? null) as Array<Buffer | string>).map(hashOfKey));
  }

  getSnapshot(ns: string): Promise<StoredSnapshot | undefined> {
    return this.run('read', () => {
      const row = getSnapshotBody(this.connection, ns);
      return row && snapshotOf(ns, row.lastSeq, row.body);
    });
  }

  getDocLog(room: string): Promise<DocLog> {
    return this.run('read', () => {
      const bodies = this.connection.pluck('SELECT body FROM doc_updates WHERE room = ? ORDER BY seq').all(room) as Buffer[];
      const cursor = this.connection.pluck('SELECT cursor FROM doc_cursors WHERE room = ?').get(room) as number | undefined;
      // Plain Uint8Arrays, as every engine hands them out (a Buffer would be one too, but compares differently in tests).
      return { updates: bodies.map((body) => new Uint8Array(body.buffer, body.byteOffset, body.byteLength)), cursor };
    });
  }
}

/** A snapshot's body, or undefined when it is larger than Node makes one buffer of (sqlite-engine.ts `MAX_SNAPSHOT_BYTES`). */
function bodyOrTooLarge(row: StoredSnapshot): Buffer | undefined {
  try {
    return snapshotBody(row);
  } catch (err) {
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}

/** The largest index snapshot body stored, in bytes, and its largest piece in one row (snapshot-pieces.ts). */
export interface SnapshotLimits {
  maxBytes: number;
  pieceBytes: number;
}

/** The reads and writes of a write transaction on the writer connection, noting what it did ({@link WriteEffects}). */
export class SqliteWriteTransaction extends SqliteReadTransaction implements WriteTransaction {
  readonly effects: WriteEffects = { audited: false, deleted: false, deleting: false };
  readonly #snapshotLimits: SnapshotLimits;

  /** @param snapshotLimits the largest snapshot body stored and its largest piece (openSqliteStore's options) */
  constructor(connection: Connection, checkContent: boolean, snapshotLimits: SnapshotLimits) {
    super(connection, checkContent);
    this.#snapshotLimits = snapshotLimits;
  }

  putRecords(rows: readonly RecordRow[]): Promise<void> {
    return this.run('write', () => {
      const replaced = textReplacements.get(this.connection);
      const before = replaced?.count;
      inBatches(this.connection, rows, RECORD_COLUMN_COUNT, UPSERT_RECORDS, putRecordColumns);
      if (replaced && replaced.count !== before) this.effects.deleted = true;
    });
  }

  deleteRecords(keys: readonly RecordKey[]): Promise<void> {
    if (keys.length > 0) this.effects.deleting = true;
    return this.run('write', () => {
      const remove = this.connection.statement('DELETE FROM records WHERE ns = ? AND id = ?');
      for (const [ns, id] of keys) if (remove.run(ns, id).changes > 0) this.effects.deleted = true;
    });
  }

  appendAudit(rows: readonly AuditRow[]): Promise<number[]> {
    return this.run('write', () => {
      const seqs = inBatches(this.connection, rows, AUDIT_COLUMN_COUNT, INSERT_AUDIT, putAuditColumns);
      if (seqs.length > 0) this.effects.audited = true;
      return seqs;
    });
  }

  putVectors(rows: readonly VectorRow[]): Promise<void> {
    return this.run('write', () => {
      putVectorRows(this.connection, rows);
    });
  }

  deleteVectors(contentHash: string): Promise<void> {
    return this.run('write', () => {
      if (this.connection.statement('DELETE FROM vectors WHERE hash = ?').run(hashKey(contentHash)).changes > 0) this.effects.deleted = true;
    });
  }

  putSnapshot(row: StoredSnapshot): Promise<void> {
    return this.run('write', () => {
      const body = bodyOrTooLarge(row);
      // Too large to store: the stale snapshot goes too (restoring it would replay every change since).
      if (body === undefined || body.byteLength > this.#snapshotLimits.maxBytes) {
        if (deleteSnapshotBody(this.connection, row.ns)) this.effects.deleted = true;
      } else putSnapshotBody(this.connection, row.ns, row.lastSeq, body, this.#snapshotLimits.pieceBytes);
    });
  }

  deleteSnapshots(namespaceKeys: Iterable<string>): Promise<void> {
    return this.run('write', () => {
      for (const ns of new Set(namespaceKeys)) {
        if (deleteSnapshotBody(this.connection, ns)) this.effects.deleted = true;
        deleteSnapshotBody(this.connection, heatKey(ns)); // ids and counts only: no erasure to follow up
      }
    });
  }

  appendDocLog(room: string, updates: readonly Uint8Array[], cursor?: number): Promise<number> {
    return this.run('write', () => {
      const insert = this.connection.statement('INSERT INTO doc_updates (room, body) VALUES (?, ?)');
      for (const update of updates) insert.run(room, update);
      if (cursor !== undefined) this.connection.statement('INSERT OR REPLACE INTO doc_cursors (room, cursor) VALUES (?, ?)').run(room, cursor);
      return this.connection.pluck('SELECT count(*) FROM doc_updates WHERE room = ?').get(room) as number;
    });
  }

  compactDocLog(room: string, update: Uint8Array): Promise<void> {
    return this.run('write', () => {
      // Deleted like a forgotten record: zeroed in the file, then out of the WAL by the checkpoint after the commit.
      if (this.connection.statement('DELETE FROM doc_updates WHERE room = ?').run(room).changes > 0) this.effects.deleted = true;
      this.connection.statement('INSERT INTO doc_updates (room, body) VALUES (?, ?)').run(room, update);
    });
  }
}

/**
 * Rows per statement of a bulk write ({@link inBatches}): a multi-row INSERT binds and steps
 * once for all of them. SQLite's CPU time per record and audit row of a 100k import (the
 * tables of sqlite-schema.ts, 10k rows a transaction): 21.7-25.4 us one row a statement,
 * 17.2-18.9 us 64 rows a statement (test/bench/sqlite-floor.ts; 32 to 128 rows measured alike).
 * Look-ups of many keys ({@link lookupBatches}) take as many a statement.
 */
const ROWS_PER_STATEMENT = 64;

/** Keys of one `IN (...)` lookup: one statement (and one call into SQLite) for many keys, not one each. */
const LOOKUP_PARAMS = Array(ROWS_PER_STATEMENT).fill('?').join(', ');

/** `keys` in batches of {@link ROWS_PER_STATEMENT}, the last one filled up with its own last key (one prepared statement for every batch; a repeat in `IN` finds nothing more). */
function* lookupBatches<K>(keys: readonly K[]): Generator<K[]> {
  for (let i = 0; i < keys.length; i += ROWS_PER_STATEMENT) {
    const batch = keys.slice(i, i + ROWS_PER_STATEMENT);
    while (batch.length < ROWS_PER_STATEMENT) batch.push(batch[batch.length - 1]!);
    yield batch;
  }
}

/**
 * The row id of a model's name in `vector_models`, `undefined` for a model with no vectors.
 * Looked up per call, not cached: an id given in a transaction that then rolled back would
 * be another model's in a later one.
 */
function modelId(connection: Connection, model: string): number | undefined {
  return connection.pluck('SELECT id FROM vector_models WHERE name = ?').get(model) as number | undefined;
}

/** Writes vector rows (replacing a model's earlier vector of the same hash), giving a new model its row id in `vector_models`. */
export function putVectorRows(connection: Connection, rows: readonly VectorRow[]): void {
  const put = connection.statement('INSERT OR REPLACE INTO vectors (model, hash, vector) VALUES (?, ?, ?)');
  let model: string | undefined;
  let id: number | undefined;
  for (const row of rows) {
    if (row.model !== model) {
      model = row.model;
      id = modelId(connection, model) ?? Number(connection.statement('INSERT INTO vector_models (name) VALUES (?)').run(model).lastInsertRowid);
    }
    put.run(id, hashKey(row.hash), vectorBlob(row.vector));
  }
}

/** The primary-key ranges of a user's namespace keys: the key of the user alone, then every longer one between `u=<user>;` and `u=<user><`. */
function userKeyRanges(userId: string): [own: string, from: string, to: string] {
  const own = namespaceKey({ userId });
  return [own, `${own};`, `${own}<`];
}

/**
 * The row of a record's columns, its content checked against its content hash: SQLite
 * checks the structure of pages, not what a row holds, so bytes changed inside a content
 * would be read back as if written. A mismatch is STORAGE_FAILED (`corrupt`) naming the
 * record. One SHA-256 of the normalized content, about 3x the decoding of the row
 * (BENCHMARKS "Content check on read"), on every record a read
 * transaction reads (get, list, export, recall's hits, the index built at open); writes
 * read records unchecked.
 */
function checkedRecordOf(columns: RecordColumns, path: string): RecordRow {
  const [ns, id, , , , , , hash, , , , , content] = columns;
  const actual = contentHashNow(content);
  if (actual !== undefined && actual !== hash) {
    throw new ZeromemError('STORAGE_FAILED', `Record ${id} of namespace ${ns} does not match its content hash: the memory file was changed or damaged there. Restore it from a backup or an export, or forget that record (${path})`, {
      storage: { reason: 'corrupt', path },
    });
  }
  return recordOf(columns);
}

/** The upsert of `rows` records: a new key is inserted, a stored one has every column but its key replaced. */
function upsertRecords(rows: number): string {
  const columns = RECORD_COLUMNS.split(', ');
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const update = columns
    .filter((column) => column !== 'ns' && column !== 'id')
    .map((column) => `${column} = excluded.${column}`)
    .join(', ');
  return `INSERT INTO records (${RECORD_COLUMNS}) VALUES ${Array.from({ length: rows }, () => tuple).join(', ')} ON CONFLICT (ns, id) DO UPDATE SET ${update}`;
}

/** The insert of `rows` audit rows (their seq given by the table). */
function insertAudit(rows: number): string {
  return `INSERT INTO audit (ns, op, id, at, actor, rest) VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?)').join(', ')}`;
}

/** A statement's SQL for one row and for a batch of {@link ROWS_PER_STATEMENT}. */
interface BatchSql {
  one: string;
  batch: string;
}

/**
 * The records of `rows` (content hash, namespace key) pairs. INDEXED BY: without statistics
 * SQLite would rather walk the namespace in id order (no sort), row by row.
 */
function byHash(rows: number): string {
  if (rows === 1) return `${SELECT_RECORDS} INDEXED BY records_by_hash WHERE content_hash = ? AND ns = ? ORDER BY id`;
  return `${SELECT_RECORDS} INDEXED BY records_by_hash WHERE (content_hash, ns) IN (VALUES ${Array.from({ length: rows }, () => '(?, ?)').join(', ')}) ORDER BY content_hash, ns, id`;
}

const BY_HASH: BatchSql = { one: byHash(1), batch: byHash(ROWS_PER_STATEMENT) };
const UPSERT_RECORDS: BatchSql = { one: upsertRecords(1), batch: upsertRecords(ROWS_PER_STATEMENT) };
const INSERT_AUDIT: BatchSql = { one: insertAudit(1), batch: insertAudit(ROWS_PER_STATEMENT) };

/**
 * Writes `rows` with the statements of `sql`: {@link ROWS_PER_STATEMENT} at a
 * time, then the rest one by one (two prepared statements in all), each row's parameters
 * put by `put`. Returns the row id each row got, in order, for a table rows are only
 * inserted into (the audit; an upsert's updated rows get none): the rows of one INSERT get
 * ascending ids one after the other (the writer holds the file's lock; `audit.seq` is
 * AUTOINCREMENT, so each is the largest so far plus one), so a batch's are its last one's
 * and the ones before it.
 */
function inBatches<R>(connection: Connection, rows: readonly R[], width: number, sql: BatchSql, put: (row: R, into: unknown[], at: number) => void): number[] {
  const ids = new Array<number>(rows.length);
  let i = 0;
  if (rows.length >= ROWS_PER_STATEMENT) {
    const batch = connection.statement(sql.batch);
    const params = new Array<unknown>(ROWS_PER_STATEMENT * width);
    for (; i + ROWS_PER_STATEMENT <= rows.length; i += ROWS_PER_STATEMENT) {
      for (let j = 0; j < ROWS_PER_STATEMENT; j++) put(rows[i + j]!, params, j * width);
      const last = Number(batch.run(params).lastInsertRowid);
      for (let j = 0; j < ROWS_PER_STATEMENT; j++) ids[i + j] = last - ROWS_PER_STATEMENT + 1 + j;
    }
  }
  if (i < rows.length) {
    const one = connection.statement(sql.one);
    const params = new Array<unknown>(width);
    for (; i < rows.length; i++) {
      put(rows[i]!, params, 0);
      ids[i] = Number(one.run(params).lastInsertRowid);
    }
  }
  return ids;
}

/**
 * The SQL of an ordered query: one namespace's rows by (time, id) from the index of the
 * stream asked for (one layer's, or one tag's through `record_tags`; a whole namespace's is
 * its layers' indexes merged, one compound SELECT that SQLite runs as a merge of ordered
 * scans, so no index of its own costs every insert), bound with {@link orderedParams},
 * then the page size.
 */
function orderedSql(query: OrderedQuery, withCursor: boolean): string {
  const time = query.orderBy === 'createdAt' ? 'created_at' : 'updated_at';
  const direction = query.order === 'asc' ? 'ASC' : 'DESC';
  if (query.tag === undefined && query.layer === undefined) {
    // Every layer has a value of LAYERS (validated on every write; another release's layers come with another format).
    const arms = LAYERS.map((layer) => `SELECT ${RECORD_COLUMNS} FROM records WHERE ${orderedWhere('records', `records.layer = '${layer}'`, query, time, withCursor)}`);
    // Result columns 5 and 6 are created_at and updated_at, 2 the id (RECORD_COLUMNS).
    return `${arms.join(' UNION ALL ')} ORDER BY ${time === 'created_at' ? 5 : 6} ${direction}, 2 ${direction} LIMIT ?`;
  }
  const table = query.tag !== undefined ? 't' : 'records';
  const where = orderedWhere(table, query.tag !== undefined ? 't.tag = ?' : 'records.layer = ?', query, time, withCursor);
  const source = query.tag !== undefined ? 'record_tags t JOIN records ON records.ns = t.ns AND records.id = t.id' : 'records';
  return `SELECT ${QUALIFIED_COLUMNS} FROM ${source} WHERE ${where} ORDER BY ${table}.${time} ${direction}, ${table}.id ${direction} LIMIT ?`;
}

/** The WHERE clause of one ordered scan: the namespace, the stream, the time range and the cursor, bound by {@link streamParams}. */
function orderedWhere(table: string, stream: string, query: OrderedQuery, time: string, withCursor: boolean): string {
  const where = [`${table}.ns = ?`, stream];
  if (query.from !== undefined) where.push(`${table}.${time} >= ?`);
  if (query.to !== undefined) where.push(`${table}.${time} < ?`);
  if (withCursor) where.push(`(${table}.${time}, ${table}.id) ${query.order === 'asc' ? '>' : '<'} (?, ?)`);
  return where.join(' AND ');
}

const QUALIFIED_COLUMNS = RECORD_COLUMNS.split(', ')
  .map((column) => `records.${column}`)
  .join(', ');

/** The parameters of {@link orderedSql} before the page size, the page starting `after`: each scan's ({@link streamParams}), once or once per layer. */
function orderedParams(query: OrderedQuery, after: OrderedQuery['after']): unknown[] {
  const params = streamParams(query, after);
  return query.tag === undefined && query.layer === undefined ? LAYERS.flatMap(() => params) : params;
}

/** The parameters of one scan's {@link orderedWhere}, in its order. */
function streamParams(query: OrderedQuery, after: OrderedQuery['after']): unknown[] {
  const params: unknown[] = [query.ns];
  if (query.tag !== undefined) params.push(query.tag);
  else if (query.layer !== undefined) params.push(query.layer);
  if (query.from !== undefined) params.push(query.from);
  if (query.to !== undefined) params.push(query.to);
  if (after !== undefined) params.push(after.time, after.id);
  return params;
}
