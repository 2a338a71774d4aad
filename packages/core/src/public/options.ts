// `openMemory`'s options, on every engine.

import type { Clock } from './clock.ts';
import type { Embedder } from './embedder.ts';
import type { LifecycleOptions } from './lifecycle.ts';
import type { Limits } from './limits.ts';
import type { RedactionOptions } from './redaction.ts';
import type { Tokenizer } from './tokenizer.ts';
import type { ZeromemError } from './errors.ts';

/** Options to open the IndexedDB database. */
export interface DatabaseOptions {
  /** An IndexedDB factory (e.g. from fake-indexeddb); the global one otherwise. */
  indexedDB?: IDBFactory;
  /** The IDBKeyRange that goes with `indexedDB`. */
  IDBKeyRange?: typeof IDBKeyRange;
  /**
   * IndexedDB transaction durability; see the README on what "acknowledged" means. On a
   * Node store on disk, `relaxed` commits without syncing the file (a process crash loses
   * nothing, a power cut may lose the last writes); the others sync every commit.
   */
  durability?: 'default' | 'strict' | 'relaxed';
}

/** When indexes are snapshotted to the store (see search/snapshot-writer.ts). */
export interface IndexSnapshotOptions {
  /** Namespaces with fewer records are rebuilt on open instead (quick enough). Default 2,000. */
  minRecords?: number;
  /** How long after the changes that call for a snapshot it is written. Default 5,000 ms. */
  delayMs?: number;
}

/** Options of {@link openMemory}. Everything is optional. */
export interface OpenMemoryOptions extends DatabaseOptions {
  /** IndexedDB database name. Default `"zeromem"`. Two memories with one name share the data (like two tabs). */
  name?: string;
  /** Where time comes from. Default: the wall clock. */
  clock?: Clock;
  /** Size limits; unspecified ones keep their defaults. */
  limits?: Partial<Limits>;
  /** Who acts, for the audit log, unless a call says otherwise. Default `"local"`. */
  actor?: string;
  /** Run `sweep()` this often (ms). Default: never (call `sweep()` yourself). */
  sweepEveryMs?: number;
  /**
   * Receives errors of background work: the sweep timer, access counts after a recall,
   * embeddings, index snapshots. Default: the first error of each code is a warning
   * (`process.emitWarning` in Node, `console.warn` elsewhere) and the work goes on; the
   * process is never ended by it.
   */
  onBackgroundError?: (err: ZeromemError) => void;
  /**
   * Embeds memories on the device for semantic recall (e.g. from `@zeromem/embed-transformers`).
   * Without one, recall is lexical (BM25) only.
   */
  embedder?: Embedder;
  /**
   * Search-index snapshots: a namespace of `minRecords` (default 2,000) or more has its
   * search index stored after it is built, `delayMs` (default 5,000) after enough changes,
   * and on `close()`, so the next open restores it instead of re-reading every memory.
   * `false` turns them off (every open rebuilds from the memories).
   */
  indexSnapshots?: IndexSnapshotOptions | false;
  /** Counts the tokens of built contexts. Default: OpenAI's `o200k_base` BPE (see {@link createTokenizer}), loaded on first use. */
  tokenizer?: Tokenizer;
  /** How records age: importance decay, use gain, when they go cold. See {@link LifecycleOptions}. */
  lifecycle?: LifecycleOptions;
  /**
   * Earlier versions each record keeps for `history()` (0 to 1000, default 20). An update
   * keeps the replaced content there until the record is forgotten; 0 keeps none, so an
   * update erases the old content at once.
   */
  historyDepth?: number;
  /**
   * Redaction of personal data on every `remember`, `rememberMany` and `update`, on the
   * device and without an LLM: e-mail addresses, phone numbers, payment cards, IBANs,
   * Chinese resident IDs and your own patterns, each masked, hashed (keyed), rejected, or
   * masked only in built contexts. See {@link RedactionOptions}. Default: off. `limits`
   * apply to the redacted form: a write that only fits before redaction is INVALID_INPUT.
   */
  redaction?: RedactionOptions;
}
