import { ZeromemError, type Memory, type MemoryRecord, type Namespace } from '@zeromem/core';
import { canonicalJson, replicaOf, replicatedState, type ApplyReplicatedResult, type Replica, type ReplicatedChange } from '@zeromem/core/internal';
import type { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { connectRoom } from './connection.ts';
import type { DocStore } from './doc-store.ts';
import type { ShareOptions } from './options.ts';
import { isNewer } from './newer-state.ts';
import { listPeers, type Peer, type PeerState } from './peers.ts';
import type { RecordCodec } from './record-codec.ts';
import { RecordMap } from './record-map.ts';
import { RoomKeyCheck } from './room-key-check.ts';
import { ShareErrors } from './share-errors.ts';
import { StoredDoc } from './stored-doc.ts';

/** Where a share stands. `failed` is final (see `error`); `closed` after `close()`. */
export type ShareStatus = 'connecting' | 'connected' | 'offline' | 'failed' | 'closed';

/** Origin of the changes this replica makes to the document. */
const LOCAL = Symbol('zeromem-local');
/** Origin of the stored document state applied on start. */
const LOAD = Symbol('zeromem-load');
/** Audit entries read at a time. */
const BATCH = 250;
/**
 * Largest document update sent at once (estimated): half the relay's default 1 MiB message
 * limit, leaving room for Yjs' encoding. A single larger record goes alone.
 */
const MAX_UPDATE_BYTES = 512 * 1024;
/** Up to this many remote changes, local records are read one by one; beyond, the namespace is paged. */
const LOCAL_READS = 200;

/** An open share of a namespace (see `shareNamespace`): its sync state, its peers, and `close()`. */
export class SharedNamespace {
  /** The shared namespace. */
  readonly namespace: Namespace;
  /** The relay room: the namespace key. */
  readonly room: string;
  /** True when local changes are not sent (a read-only token or `readOnly: true`). */
  readonly readOnly: boolean;
  /**
   * Resolves once this replica has exchanged state with the relay and applied what it
   * received to the store; rejects (UNAUTHORIZED, DECRYPTION_FAILED) if the share fails first,
   * and with UNAUTHORIZED after the first 5 connects failed (the relay is unreachable, or
   * refused the token in a browser, which is not told why): then the share keeps retrying
   * and syncs if the relay comes back, without `synced` settling again.
   */
  readonly synced: Promise<void>;

  readonly #memory: Memory;
  readonly #replica: Replica;
  /** Stops hearing of the memory's writes. */
  #stopWatching: (() => void) | undefined;
  readonly #opts: ShareOptions;
  readonly #codec: RecordCodec;
  readonly #store: DocStore;
  readonly #stored: StoredDoc;
  readonly #doc = new Y.Doc({ gc: true });
  readonly #map: RecordMap;
  readonly #records: Y.Map<unknown>;
  readonly #keyCheck: RoomKeyCheck;
  #provider: WebsocketProvider | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  /** The last audit seq whose change is in the document (or was applied from it). */
  #cursor = 0;
  /** Record ids the document changed remotely and the store has not caught up with. */
  readonly #dirty = new Set<string>();
  #fullReconcile = false;
  #relaySynced = false;
  #syncedDone = false;
  #resolveSynced!: () => void;
  #rejectSynced!: (err: ZeromemError) => void;
  #chain: Promise<void> = Promise.resolve();
  #queued: Promise<void> | undefined;
  #status: ShareStatus = 'connecting';
  #closing: Promise<void> | undefined;
  readonly #onClosed: () => void;
  #error: ZeromemError | undefined;
  readonly #errors: ShareErrors;

  /** @internal Use {@link shareNamespace}. */
  constructor(
    memory: Memory,
    namespace: Namespace,
    room: string,
    opts: ShareOptions,
    codec: RecordCodec,
    store: DocStore,
    readOnly: boolean,
    onClosed: () => void,
  ) {
    this.#onClosed = onClosed;
    this.#errors = new ShareErrors(opts.onError);
    this.#memory = memory;
    this.#replica = replicaOf(memory);
    this.namespace = namespace;
    this.room = room;
    this.#opts = opts;
    this.#codec = codec;
    this.#store = store;
    this.#stored = new StoredDoc(store, room, this.#doc, (err) => this.#errors.report(err));
    this.readOnly = readOnly;
    this.#map = new RecordMap(this.#doc, codec);
    this.#records = this.#map.records;
    this.#keyCheck = new RoomKeyCheck(this.#doc, this.#records, codec, room, readOnly, LOCAL);
    this.synced = new Promise<void>((resolve, reject) => {
      this.#resolveSynced = resolve;
      this.#rejectSynced = reject;
    });
    this.synced.catch(() => undefined); // the failure is also in `error` and onError; awaiting is optional
  }

  /** Where the share stands now. */
  get status(): ShareStatus {
    return this.#status;
  }

  /**
   * Records from other replicas this replica refused (INVALID_INPUT, DECRYPTION_FAILED), the
   * last 100, oldest first. They are reported to `onError` too; without it they are only here,
   * so one bad record from a broken or hostile peer never throws.
   */
  get rejected(): readonly ZeromemError[] {
    return this.#errors.rejected;
  }

  /** Why the share failed, when `status` is `failed`. */
  get error(): ZeromemError | undefined {
    return this.#error;
  }

  /** @internal Loads the stored document, connects, and starts sharing (offline changes once in sync). */
  async start(): Promise<void> {
    const storedCursor = await this.#stored.load(LOAD);
    this.#cursor = storedCursor ?? 0;
    if (storedCursor !== undefined) {
      // A crash may have come between storing a remote change and applying it: compare all,
      // forgotten ids too (on read-only replicas as well: they apply forgets like any other).
      for (const id of this.#records.keys()) this.#dirty.add(id);
      for (const id of this.#map.forgotten.keys()) this.#dirty.add(id);
      this.#fullReconcile = !this.readOnly;
    }
    this.#doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin === LOAD) return;
      this.#stored.updated(update);
      this.#stored.save(undefined);
    });
    this.#records.observe((event, transaction) => {
      for (const [id, change] of event.changes.keys) {
        // A forget's content must leave the stored document now; an overwritten text soon; other overwrites may wait.
        if (change.action === 'delete') this.#stored.deleted();
        else if (change.action === 'update') this.#stored.overwritten(changesText(change.oldValue, this.#records.get(id)));
      }
      if (transaction.origin === LOCAL) return;
      for (const id of event.keysChanged) this.#dirty.add(id);
      void this.#schedule();
    });
    this.#map.forgotten.observe((event, transaction) => {
      if (transaction.origin === LOCAL) return;
      for (const id of event.keysChanged) this.#dirty.add(id);
      void this.#schedule();
    });
    this.#keyCheck.watch(() => void this.#schedule());
    // Writes of this process (and, in browsers, of other tabs) are seen at once; the poll
    // catches any other writer.
    this.#stopWatching = this.#replica.onAuditWrites(() => void this.#schedule());
    this.#connect();
    await this.#schedule();
    this.#timer = setInterval(() => void this.#schedule(), this.#opts.pollMs ?? 50);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #connect(): void {
    const me: PeerState = { readOnly: this.readOnly };
    if (this.#opts.agentName !== undefined) me.agentName = this.#opts.agentName;
    if (this.#opts.deviceName !== undefined) me.deviceName = this.#opts.deviceName;
    this.#provider = connectRoom(this.#doc, this.room, this.#opts, me, {
      status: (status) => {
        if (this.#status === 'failed' || this.#status === 'closed') return;
        this.#status = status === 'connected' ? 'connected' : status === 'connecting' ? 'connecting' : 'offline';
      },
      synced: () => {
        this.#relaySynced = true;
        void this.#schedule();
      },
      refused: (err) => this.#fail(err),
      tooLarge: (err) => this.#errors.report(err),
      unreadable: (err) => this.#errors.report(err),
      unreachable: (err) => {
        // Not final: a relay that is only down may come back, and the share then syncs (see `status`).
        if (this.#syncedDone) return;
        this.#syncedDone = true;
        this.#rejectSynced(err);
        this.#errors.report(err);
      },
    });
  }

  /** Other replicas online in this namespace (agent, device, read-only), from the relay's awareness. */
  peers(): Peer[] {
    return this.#provider ? listPeers(this.#provider.awareness) : [];
  }

  /** Resolves once every local change made before the call is in the shared document and stored on this device. */
  flush(): Promise<void> {
    return this.#schedule();
  }

  /** Goes offline: local changes keep being recorded and are sent on `connect()`. */
  disconnect(): void {
    this.#provider?.disconnect();
  }

  /** Reconnects after {@link disconnect}. */
  connect(): void {
    if (this.#status !== 'failed' && this.#status !== 'closed') void this.#provider?.connect();
  }

  /** Shares the last local changes, stores the document, disconnects. The memory stays open. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#stopWatching?.();
    if (this.#status !== 'failed') await this.#schedule();
    this.#status = 'closed'; // steps scheduled from now on do nothing
    this.#provider?.destroy(); // no remote update arrives after this
    await this.#chain; // a step already running finishes
    await this.#stored.stored(); // and what it changed is stored
    await this.#stored.compactIfOverwritten(); // no old version outlives the session
    this.#doc.destroy();
    this.#store.close();
    this.#onClosed();
  }

  /** Runs one step after the running one; a step already waiting is reused. Never rejects. */
  #schedule(): Promise<void> {
    if (this.#queued) return this.#queued;
    const run = this.#chain.then(() => {
      this.#queued = undefined;
      return this.#step();
    });
    this.#chain = run.catch((err: unknown) => this.#errors.report(err as ZeromemError));
    this.#queued = this.#chain;
    return this.#chain;
  }

  async #step(): Promise<void> {
    if (this.#status === 'closed' || this.#status === 'failed') return;
    const relaySynced = this.#relaySynced;
    await this.#stored.stored();
    if (!(await this.#checkKey())) return;
    await this.#shareLocal();
    if (this.#fullReconcile) {
      this.#fullReconcile = false;
      await this.#markUnshared();
    }
    await this.#applyRemote();
    this.#stored.save(this.#cursor);
    await this.#stored.stored();
    await this.#stored.compactIfDue();
    if (relaySynced && !this.#syncedDone) {
      this.#syncedDone = true;
      this.#resolveSynced();
    }
  }

  /** Encrypted rooms carry a key-check marker (see {@link RoomKeyCheck}): fails the share on a wrong or missing key. */
  async #checkKey(): Promise<boolean> {
    const result = await this.#keyCheck.check(this.#relaySynced);
    if (result instanceof ZeromemError) {
      this.#fail(result);
      return false;
    }
    return result;
  }

  /**
   * Local changes go into the document only while the relay is in sync with it, a batch
   * per transaction, so each is sent as one small update (the relay limits message size).
   * Until then they wait in core's store and audit log, which are durable already.
   */
  #canSend(): boolean {
    return !this.readOnly && this.#provider?.synced === true;
  }

  /** Puts the local changes after the cursor (from the audit log) into the document. */
  async #shareLocal(): Promise<void> {
    while (this.readOnly || this.#canSend()) {
      const entries = await this.#memory.audit(this.namespace, { after: this.#cursor, limit: BATCH });
      if (entries.length === 0) return;
      // A retier changes only this device's tier, never the replicated state: reading it would re-warm the record.
      const ids = [...new Set(entries.filter((entry) => !entry.replicated && entry.op !== 'retier').map((entry) => entry.id))];
      if (this.readOnly) {
        for (const id of ids) {
          this.#errors.report(new ZeromemError('UNAUTHORIZED', `Memory "${id}" of namespace ${this.room} was changed on a read-only replica: the change stays on this device and is not shared.`));
        }
      } else if (ids.length) {
        // An id from another replica may be invalid: applyReplicated reports it, here it has no local record.
        const read = (id: string) => this.#memory.get(this.namespace, id, { rewarm: false }).catch((err: ZeromemError) => (err.code === 'INVALID_INPUT' ? undefined : Promise.reject(err)));
        const records = await Promise.all(ids.map(read));
        const plans = await Promise.all(ids.map((id, i) => this.#map.planLocal(id, records[i])));
        plans.forEach((plan, i) => {
          // Forgotten elsewhere, or changed later elsewhere: this replica takes the document's state.
          if (plan.kind === 'forgotten' || plan.kind === 'outdated') this.#dirty.add(ids[i]!);
        });
        this.#sendInParts(plans.flatMap((plan) => (plan.kind === 'change' ? [plan] : [])));
      }
      this.#cursor = entries[entries.length - 1]!.seq;
      this.#stored.save(this.#cursor);
    }
  }

  /** One document transaction (one update on the wire) per part of at most MAX_UPDATE_BYTES. */
  #sendInParts(changes: Array<{ apply: () => void; bytes: number }>): void {
    let part: Array<() => void> = [];
    let bytes = 0;
    const send = () => {
      const applies = part;
      if (applies.length) this.#doc.transact(() => applies.forEach((apply) => apply()), LOCAL);
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

  /** After a restart: records in the store but not in the document were forgotten elsewhere meanwhile. */
  async #markUnshared(): Promise<void> {
    let cursor: string | undefined;
    do {
      const page = await this.#memory.list(this.namespace, { limit: 1000, ...(cursor ? { cursor } : {}) });
      for (const record of page.items) if (!this.#records.has(record.id)) this.#dirty.add(record.id);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  /** Makes the store hold what the document holds for the ids that changed remotely. */
  async #applyRemote(): Promise<void> {
    while (this.#dirty.size) {
      const ids = [...this.#dirty];
      this.#dirty.clear();
      const changes: ReplicatedChange[] = [];
      const changeIds: string[] = [];
      const locals = await this.#localRecords(ids);
      for (const id of ids) {
        try {
          const { change, raced } = await this.#map.remoteChange(id);
          // An update that raced a forget of the same incarnation: the forget wins everywhere.
          if (raced && !this.readOnly) this.#doc.transact(() => this.#records.delete(id), LOCAL);
          if (!raced && (await this.#keepsLocal(change, locals.get(id)))) continue;
          changes.push(change);
          changeIds.push(id);
        } catch (err) {
          this.#errors.reject(err as ZeromemError);
        }
      }
      let result: ApplyReplicatedResult;
      try {
        result = await this.#replica.apply(this.namespace, changes, { after: this.#cursor, actor: 'sync' });
      } catch (err) {
        for (const id of ids) this.#dirty.add(id); // nothing was stored: the next step tries again
        throw err;
      }
      if (result.stale) {
        for (const id of ids) this.#dirty.add(id);
        if (!this.#canSend()) return; // offline: the local change stays; both meet once it is sent
        await this.#shareLocal(); // the local change goes into the document first, then the document's winner comes back
        continue;
      }
      for (const failure of result.rejected) {
        this.#errors.reject(
          new ZeromemError('INVALID_INPUT', `Memory "${changeIds[failure.index]}" from another replica of ${this.room} is invalid and was not stored.`, { issues: failure.issues }),
        );
      }
      this.#cursor = Math.max(this.#cursor, result.lastSeq);
    }
  }

  /**
   * True when this replica's state of `id` is newer than the document's (two replicas set
   * it at once and the document kept the older): the local state goes back into the
   * document, so every replica ends with the newer one.
   */
  async #keepsLocal(change: ReplicatedChange, local: MemoryRecord | undefined): Promise<boolean> {
    if (this.readOnly || !('put' in change) || !local || !isNewer(replicatedState(local), change.put)) return false;
    const plan = await this.#map.planLocal(local.id, local);
    if (plan.kind !== 'change') return false; // e.g. the local copy is a forgotten incarnation: the document's wins
    this.#doc.transact(plan.apply, LOCAL);
    return true;
  }

  /** This replica's records among `ids` (none on a read-only replica, which never keeps its own): one read per id, or pages of the namespace for many. */
  async #localRecords(ids: string[]): Promise<Map<string, MemoryRecord>> {
    const found = new Map<string, MemoryRecord>();
    if (this.readOnly) return found;
    if (ids.length <= LOCAL_READS) {
      // An id from another replica may be invalid: applyReplicated reports it, here it has no local record.
      const read = (id: string) => this.#memory.get(this.namespace, id, { rewarm: false }).catch((err: ZeromemError) => (err.code === 'INVALID_INPUT' ? undefined : Promise.reject(err)));
      const records = await Promise.all(ids.map(read));
      for (const record of records) if (record) found.set(record.id, record);
      return found;
    }
    const wanted = new Set(ids);
    let cursor: string | undefined;
    do {
      const page = await this.#memory.list(this.namespace, { limit: 1000, ...(cursor ? { cursor } : {}) });
      for (const record of page.items) if (wanted.has(record.id)) found.set(record.id, record);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return found;
  }

  /** Stores the updates made since the last save (and the cursor), in order, off the caller's path. */
  #fail(err: ZeromemError): void {
    if (this.#status === 'failed' || this.#status === 'closed') return;
    this.#status = 'failed';
    this.#error = err;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#stopWatching?.();
    this.#provider?.disconnect();
    this.#rejectSynced(err);
    this.#errors.report(err);
  }
}

/** True when an overwrite may have changed a record's text: content, tags or metadata (sealed values always may). */
function changesText(before: unknown, after: unknown): boolean {
  if (!isPlain(before) || !isPlain(after)) return true;
  return before.content !== after.content || canonicalJson(before.tags) !== canonicalJson(after.tags) || canonicalJson(before.metadata) !== canonicalJson(after.metadata);
}

function isPlain(value: unknown): value is { content?: unknown; tags?: unknown; metadata?: unknown } {
  return value !== null && typeof value === 'object' && !('x' in value);
}
