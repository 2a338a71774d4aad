import { ZeromemError, type MemoryRecord } from '@zeromem/core';
import { replicatedState, type ApplyReplicatedResult, type Replica, type ReplicatedChange } from '@zeromem/core/internal';
import { readLocal, type LocalChanges, type LocalChangesContext } from './local-changes.ts';
import { isNewer } from './newer-state.ts';
import type { StoredDoc } from './stored-doc.ts';

/** Up to this many remote changes, local records are read one by one; beyond, the namespace is paged. */
const LOCAL_READS = 200;

/** What the loop from the document to the store needs of its share (the other loop's too). */
export interface RemoteChangesContext extends LocalChangesContext {
  replica: Replica;
  /** The stored document: the remote updates not stored yet are stored with the changes they carry. */
  stored: StoredDoc;
}

/**
 * The loop from the shared document to this replica's store: the record ids other
 * replicas changed are marked, and each step makes the store hold what the document holds
 * for them (a local state newer than the document's goes back into the document instead).
 */
export class RemoteChanges {
  /** Record ids the document changed remotely and the store has not caught up with. */
  private readonly dirty = new Set<string>();

  constructor(
    private readonly share: RemoteChangesContext,
    private readonly local: LocalChanges,
  ) {}

  /** Marks a record the document changed (the next {@link apply} brings it to the store). */
  mark(id: string): void {
    this.dirty.add(id);
  }

  /** Makes the store hold what the document holds for the marked ids; a stale apply lets local changes go first while `canSend()`. */
  async apply(canSend: () => boolean): Promise<void> {
    const { map, doc, replica, namespace, room, readOnly, errors } = this.share;
    while (this.dirty.size) {
      const ids = [...this.dirty];
      this.dirty.clear();
      const changes: ReplicatedChange[] = [];
      const changeIds: string[] = [];
      const locals = await this.localRecords(ids);
      for (const id of ids) {
        try {
          const { change, raced } = await map.remoteChange(id);
          // An update that raced a forget of the same incarnation: the forget wins everywhere.
          if (raced && !readOnly) doc.transact(() => map.records.delete(id), this.share.local);
          if (!raced && (await this.keepsLocal(change, locals.get(id)))) continue;
          changes.push(change);
          changeIds.push(id);
        } catch (err) {
          errors.reject(err as ZeromemError);
        }
      }
      let result: ApplyReplicatedResult;
      // The updates that carried these changes commit with them: stored no later than applied,
      // in one commit. Those a save of a local change took with it are stored first.
      await this.share.stored.stored();
      const updates = this.share.stored.take();
      try {
        result = await replica.apply(namespace, changes, { after: this.local.cursor, actor: 'sync', ...(updates.length ? { docLog: { room, updates } } : {}) });
      } catch (err) {
        for (const id of ids) this.dirty.add(id); // nothing was stored: the next step tries again
        this.share.stored.putBack(updates);
        throw err;
      }
      this.share.stored.logged(result.docLogSize);
      if (result.stale) {
        for (const id of ids) this.dirty.add(id);
        if (!canSend()) return; // offline: the local change stays; both meet once it is sent
        await this.local.send(canSend); // the local change goes into the document first, then the document's winner comes back
        continue;
      }
      for (const failure of result.rejected) {
        errors.reject(new ZeromemError('INVALID_INPUT', `Memory "${changeIds[failure.index]}" from another replica of ${room} is invalid and was not stored.`, { issues: failure.issues }));
      }
      this.local.cursor = Math.max(this.local.cursor, result.lastSeq);
    }
  }

  /**
   * True when this replica's state of `id` is newer than the document's (two replicas set
   * it at once and the document kept the older): the local state goes back into the
   * document, so every replica ends with the newer one.
   */
  private async keepsLocal(change: ReplicatedChange, local: MemoryRecord | undefined): Promise<boolean> {
    if (this.share.readOnly || !('put' in change) || !local || !isNewer(replicatedState(local), change.put)) return false;
    const plan = await this.share.map.planLocal(local.id, local);
    if (plan.kind !== 'change') return false; // e.g. the local copy is a forgotten incarnation: the document's wins
    this.share.doc.transact(plan.apply, this.share.local);
    return true;
  }

  /** This replica's records among `ids` (none on a read-only replica, which never keeps its own): one read per id, or pages of the namespace for many. */
  private async localRecords(ids: string[]): Promise<Map<string, MemoryRecord>> {
    const { memory, namespace, readOnly } = this.share;
    const found = new Map<string, MemoryRecord>();
    if (readOnly) return found;
    if (ids.length <= LOCAL_READS) {
      const records = await Promise.all(ids.map((id) => readLocal(memory, namespace, id)));
      for (const record of records) if (record) found.set(record.id, record);
      return found;
    }
    const wanted = new Set(ids);
    let cursor: string | undefined;
    do {
      const page = await memory.list(namespace, { limit: 1000, includeClosed: true, ...(cursor ? { cursor } : {}) });
      for (const record of page.items) if (wanted.has(record.id)) found.set(record.id, record);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return found;
  }
}
