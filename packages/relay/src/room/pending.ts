import type * as Y from 'yjs';

/**
 * Updates a document received whose dependencies it does not have yet wait in its "pending"
 * structs and delete set. They are not part of the document: the relay does not store them
 * (only what integrates is stored), so it must not forward them either, nor write them
 * into a compaction. These helpers measure, drop and hide them.
 */

/** Bytes held as pending (structs waiting for a dependency, deletes of unknown structs). */
export function pendingBytes(doc: Y.Doc): number {
  return (doc.store.pendingStructs?.update.byteLength ?? 0) + (doc.store.pendingDs?.byteLength ?? 0);
}

/** Forgets everything pending. A sender whose update it was resends it on its next sync. */
export function dropPending(doc: Y.Doc): void {
  doc.store.pendingStructs = null;
  doc.store.pendingDs = null;
}

/** Runs `encode` (an encoding of `doc`) as if nothing were pending: Yjs would add it otherwise. */
export function withoutPending<T>(doc: Y.Doc, encode: () => T): T {
  const { pendingStructs, pendingDs } = doc.store;
  doc.store.pendingStructs = null;
  doc.store.pendingDs = null;
  try {
    return encode();
  } finally {
    doc.store.pendingStructs = pendingStructs;
    doc.store.pendingDs = pendingDs;
  }
}
