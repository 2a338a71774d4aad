import { ZeromemError, type Memory, type Namespace } from '@zeromem/core';
import type * as Y from 'yjs';
import type { RecordMap } from './record-map.ts';
import type { ShareErrors } from './share-errors.ts';

/** Audit entries read at a time. */
const BATCH = 250;
/**
 * Largest document update sent at once (estimated): half the relay's default 1 MiB message
 * limit, leaving room for Yjs' encoding. A single larger record goes alone.
 */
const MAX_UPDATE_BYTES = 512 * 1024;
/** Audit ops that may drop or replace text the document holds (the others add a record, or change only this device). */
const ERASING_OPS = new Set(['update', 'forget', 'expire', 'merge']);

/** What the loop from the store to the document needs of its share. */
export interface LocalChangesContext {
  memory: Memory;
  namespace: Namespace;
  room: string;
  readOnly: boolean;
  doc: Y.Doc;
  map: RecordMap;
  /** Origin of the transactions this replica makes. */
  local: symbol;
  errors: ShareErrors;
  /** Records whose state the document has and the store must take (forgotten or changed later elsewhere). */
  markRemote: (id: string) => void;
  /** Stores the document with this cursor (off the caller's path). */
  saveCursor: (cursor: number) => void;
}

/**
 * The loop from this replica's store to the shared document: the changes in the audit log
 * after the cursor go into the document, a batch per transaction (so each is sent as one
 * small update), only while the relay is in sync with it. The cursor is the last audit seq
 * whose change is in the document (or was applied from it).
 */
export class LocalChanges {
  /** The last audit seq whose change is in the document (or was applied from it). */
  cursor = 0;
  /** The last audit seq {@link eraseOffline} looked at (at or after the cursor while offline). */
  private erasedUpTo = 0;
  /** Bytes of updates put into the document while the relay was not in sync with it (sent as one message on reconnect). */
  private offlineBytes = 0;

  constructor(private readonly share: LocalChangesContext) {}

  /** Puts the local changes after the cursor into the document while `canSend()` (a read-only replica reports them instead). */
  async send(canSend: () => boolean): Promise<void> {
    const { memory, namespace, room, readOnly, map, errors } = this.share;
    if (canSend()) this.offlineBytes = 0; // the relay has everything the document had
    while (readOnly || canSend()) {
      const entries = await memory.audit(namespace, { after: this.cursor, limit: BATCH });
      if (entries.length === 0) return;
      // A retier changes only this device's tier, never the replicated state: reading it would re-warm the record.
      const ids = [...new Set(entries.filter((entry) => !entry.replicated && entry.op !== 'retier').map((entry) => entry.id))];
      if (readOnly) {
        for (const id of ids) {
          errors.report(new ZeromemError('UNAUTHORIZED', `Memory "${id}" of namespace ${room} was changed on a read-only replica: the change stays on this device and is not shared.`));
        }
      } else if (ids.length) {
        const records = await Promise.all(ids.map((id) => readLocal(memory, namespace, id)));
        const plans = await Promise.all(ids.map((id, i) => map.planLocal(id, records[i])));
        plans.forEach((plan, i) => {
          // Forgotten elsewhere, or changed later elsewhere: this replica takes the document's state.
          if (plan.kind === 'forgotten' || plan.kind === 'outdated') this.share.markRemote(ids[i]!);
        });
        this.sendInParts(plans.flatMap((plan) => (plan.kind === 'change' ? [plan] : [])));
      }
      this.cursor = entries[entries.length - 1]!.seq;
      this.share.saveCursor(this.cursor);
    }
  }

  /**
   * While the relay is not in sync (offline, or still connecting): the local forgets, and
   * the updates of records the document holds, go into the document now, so that the
   * compaction they trigger takes the old text out of the stored document at once rather
   * than when the share reconnects, which may be never. A forget is a key deletion and a
   * tombstone, a few bytes, so every one goes in; updates go in while they add up to less
   * than one message (MAX_UPDATE_BYTES), since y-websocket sends what the relay lacks as one
   * message on reconnect; beyond it they wait for the relay like any other change. Merging
   * is the same as for changes made online at once on two replicas (the newer state wins,
   * a tombstone beats an update of its incarnation). The cursor does not move: {@link send}
   * goes over these entries again once online and finds the document already holding them.
   */
  async eraseOffline(): Promise<void> {
    const { memory, namespace, map, doc, local } = this.share;
    this.erasedUpTo = Math.max(this.erasedUpTo, this.cursor);
    if (map.records.size === 0) return; // nothing stored to erase (a first share reads no audit log here)
    for (;;) {
      const entries = await memory.audit(namespace, { after: this.erasedUpTo, limit: BATCH });
      if (entries.length === 0) return;
      const ids = [...new Set(entries.filter((entry) => !entry.replicated && ERASING_OPS.has(entry.op) && map.records.has(entry.id)).map((entry) => entry.id))];
      const records = await Promise.all(ids.map((id) => readLocal(memory, namespace, id)));
      const plans = await Promise.all(ids.map((id, i) => map.planLocal(id, records[i])));
      const applies: Array<() => void> = [];
      plans.forEach((plan, i) => {
        if (plan.kind !== 'change') return;
        if (records[i] !== undefined) {
          if (this.offlineBytes + plan.bytes > MAX_UPDATE_BYTES) return;
          this.offlineBytes += plan.bytes;
        }
        applies.push(plan.apply);
      });
      if (applies.length) doc.transact(() => applies.forEach((apply) => apply()), local);
      this.erasedUpTo = entries[entries.length - 1]!.seq;
    }
  }

  /** After a restart: records in the store but not in the document were forgotten elsewhere meanwhile. */
  async markUnshared(): Promise<void> {
    const { memory, namespace, map } = this.share;
    let cursor: string | undefined;
    do {
      const page = await memory.list(namespace, { limit: 1000, includeClosed: true, ...(cursor ? { cursor } : {}) });
      for (const record of page.items) if (!map.records.has(record.id)) this.share.markRemote(record.id);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  /** One document transaction (one update on the wire) per part of at most MAX_UPDATE_BYTES. */
  private sendInParts(changes: Array<{ apply: () => void; bytes: number }>): void {
    let part: Array<() => void> = [];
    let bytes = 0;
    const send = () => {
      const applies = part;
      if (applies.length) this.share.doc.transact(() => applies.forEach((apply) => apply()), this.share.local);
      part = [];
      bytes = 0;
    };
    for (const change of changes) {
      if (bytes + change.bytes > MAX_UPDATE_BYTES) send();
      part.push(change.apply);
      bytes += change.bytes;
    }
    send();
  }
}

/** This replica's record `id`, without re-warming it; undefined when there is none (an id from another replica may be invalid). */
export function readLocal(memory: Memory, namespace: Namespace, id: string) {
  return memory.get(namespace, id, { rewarm: false }).catch((err: ZeromemError) => (err.code === 'INVALID_INPUT' ? undefined : Promise.reject(err)));
}
