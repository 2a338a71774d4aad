/**
 * The tables of a Node store (one SQLite file per memory, see sqlite-engine.ts). Append a
 * format version for a change, never edit one: a process of another version refuses the
 * file (`STORAGE_FAILED`, `locked`, saying why) instead of writing rows it does not know.
 *
 * - `records`: one row per record. What is queried (namespace, id, user, layer, times,
 *   expiry, content hash, the keyed-fact fields) are columns; content is a column, and so
 *   are the tags (a JSON array); what is only read back (namespace, metadata, history, the
 *   small scalars) is one JSON text `rest`. Every index is one some query needs, since each
 *   costs every insert a b-tree write (format 1004 dropped three of seven): the key (ns, id)
 *   (also a user's records: a namespace key starts with its user's, sqlite-transactions.ts
 *   `userRecords`), the content hash, one layer's records by either time (a whole
 *   namespace's order merges its layers' three, `orderedSql`), and the partial ones of the
 *   records that expire and of the keyed facts.
 * - `record_tags`: one row per (record, tag) with both order times, so a tag-filtered
 *   ordered page is an index range scan. Triggers on `records` keep it, so no write path
 *   can leave a tag row behind (they run only for rows with tags: a trigger program costs
 *   about as much as the insert itself).
 * - `audit`: the audit log; `seq` is the row id (AUTOINCREMENT: never reused, also after
 *   the newest entries were deleted), one sequence for every process.
 * - `vectors`: embeddings by (model, content hash): the vector's dimension, the column of its
 *   first non-zero value and the values up to its last (sqlite-rows.ts `vectorBlob`; before
 *   format 1003 every value, zeros too); `vector` NULL when the model could not embed the text.
 *   A rowid table (before 1003 one without rowid, keyed by model and hash): new vectors are
 *   appended rather than put between others in hash order, 1.8x quicker to write (20k).
 *   One index, (hash, model): a vector's lookup and a content hash's deletion; a model's
 *   count and hashes (at open) scan it. The model is the row id of its name in
 *   `vector_models` and the hash its 32 bytes (sqlite-rows.ts `hashKey`; before format 1004
 *   the model's name and the hash's 64 hex characters in every row and index entry: ~4 MB
 *   of a 20k store).
 * - `index_snapshots`: one search-index snapshot per namespace (snapshot-body.ts), its body in
 *   the row when it fits one piece, else in `index_snapshot_pieces` (format 1005;
 *   snapshot-pieces.ts): a 1M-memory namespace's body (820 MB) passed the largest blob
 *   better-sqlite3 binds (~512 MiB).
 * - `doc_updates`, `doc_cursors`: the document logs of @zeromem/sync's shared documents
 *   (store/port.ts `DocLog`), opaque bytes in append order per room and the room's cursor,
 *   in the memory's own file so that `secure_delete` and the checkpoint after a deletion
 *   cover them (format 1002; before it they were a file of their own, `<name>-sync.sqlite`,
 *   migrated once by legacy/sync-documents.ts).
 * - `meta`: `version`, the format version.
 */

/**
 * The format version of this schema in `meta`. Above every IndexedDB version the
 * releases before this engine stored under the same key (Dexie's version times ten, 40 at
 * the last of them), so those releases refuse a migrated file rather than write to it.
 */
export const FORMAT_VERSION = 1005;

/** The format before the document logs: a file of it gets their tables and this release's version at open (sqlite-format.ts). */
export const FORMAT_BEFORE_DOC_LOGS = 1001;

/** The format whose vectors hold every value, zeros too: a file of it has them rewritten from their first non-zero value to their last at open (sqlite-format.ts). */
export const FORMAT_BEFORE_TRIMMED_VECTORS = 1002;

/** The format with seven record indexes and vectors keyed by the model's name and the hash's hex: a file of it loses three indexes and has its vectors rewritten at open (sqlite-format.ts). */
export const FORMAT_BEFORE_VECTOR_MODELS = 1003;

/** The format whose snapshot bodies are one row each: a file of it gets the table of pieces at open (its rows stay as they are: a one-row body is read as before). */
export const FORMAT_BEFORE_SNAPSHOT_PIECES = 1004;

/** The vectors table, by the name it is created under (a migration builds it beside the old one). */
export const vectorsTable = (name: string) => `CREATE TABLE IF NOT EXISTS ${name} (model INTEGER NOT NULL, hash BLOB NOT NULL, vector BLOB)`;

/** The names of the models of `vectors`' rows, each once. */
export const VECTOR_MODELS_TABLE = 'CREATE TABLE IF NOT EXISTS vector_models (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)';

export const TABLES = `
  CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS records (
    ns TEXT NOT NULL,
    id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    layer TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    expires_at INTEGER,
    content_hash TEXT NOT NULL,
    fact_key TEXT,
    valid_from INTEGER,
    valid_until INTEGER,
    closed_by TEXT,
    content TEXT NOT NULL,
    tags TEXT NOT NULL,
    rest TEXT NOT NULL,
    PRIMARY KEY (ns, id)
  );
  CREATE INDEX IF NOT EXISTS records_by_hash ON records (content_hash, ns);
  CREATE INDEX IF NOT EXISTS records_by_layer_created ON records (ns, layer, created_at, id);
  CREATE INDEX IF NOT EXISTS records_by_layer_updated ON records (ns, layer, updated_at, id);
  CREATE INDEX IF NOT EXISTS records_by_expiry ON records (expires_at) WHERE expires_at IS NOT NULL;
  CREATE INDEX IF NOT EXISTS records_by_key ON records (ns, fact_key) WHERE fact_key IS NOT NULL;
  CREATE TABLE IF NOT EXISTS record_tags (
    ns TEXT NOT NULL,
    tag TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (ns, tag, created_at, id)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS record_tags_by_updated ON record_tags (ns, tag, updated_at, id);
  CREATE TRIGGER IF NOT EXISTS record_tags_insert AFTER INSERT ON records WHEN NEW.tags <> '[]' BEGIN
    INSERT OR IGNORE INTO record_tags SELECT NEW.ns, value, NEW.created_at, NEW.updated_at, NEW.id FROM json_each(NEW.tags);
  END;
  CREATE TRIGGER IF NOT EXISTS record_tags_update AFTER UPDATE OF tags, created_at, updated_at ON records WHEN OLD.tags <> '[]' OR NEW.tags <> '[]' BEGIN
    DELETE FROM record_tags WHERE ns = OLD.ns AND tag IN (SELECT value FROM json_each(OLD.tags)) AND created_at = OLD.created_at AND id = OLD.id;
    INSERT OR IGNORE INTO record_tags SELECT NEW.ns, value, NEW.created_at, NEW.updated_at, NEW.id FROM json_each(NEW.tags);
  END;
  CREATE TRIGGER IF NOT EXISTS record_tags_delete AFTER DELETE ON records WHEN OLD.tags <> '[]' BEGIN
    DELETE FROM record_tags WHERE ns = OLD.ns AND tag IN (SELECT value FROM json_each(OLD.tags)) AND created_at = OLD.created_at AND id = OLD.id;
  END;
  CREATE TABLE IF NOT EXISTS audit (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    ns TEXT NOT NULL,
    op TEXT NOT NULL,
    id TEXT NOT NULL,
    at INTEGER NOT NULL,
    actor TEXT NOT NULL,
    rest TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS audit_by_ns ON audit (ns, seq);
  ${VECTOR_MODELS_TABLE};
  ${vectorsTable('vectors')};
  CREATE UNIQUE INDEX IF NOT EXISTS vectors_by_hash ON vectors (hash, model);
  CREATE TABLE IF NOT EXISTS index_snapshots (ns TEXT PRIMARY KEY, last_seq INTEGER NOT NULL, body BLOB NOT NULL);
  CREATE TABLE IF NOT EXISTS index_snapshot_pieces (ns TEXT NOT NULL, piece INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (ns, piece));
  CREATE TABLE IF NOT EXISTS doc_updates (seq INTEGER PRIMARY KEY, room TEXT NOT NULL, body BLOB NOT NULL);
  CREATE INDEX IF NOT EXISTS doc_updates_by_room ON doc_updates (room, seq);
  CREATE TABLE IF NOT EXISTS doc_cursors (room TEXT PRIMARY KEY, cursor INTEGER NOT NULL) WITHOUT ROWID;
`;

/** What a new file is created with: the tables and its format version. */
export const NEW_FILE = `${TABLES} INSERT OR IGNORE INTO meta (k, v) VALUES ('version', ${FORMAT_VERSION});`;
