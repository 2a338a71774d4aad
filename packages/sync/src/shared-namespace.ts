import { ZeromemError, type Memory, type Namespace } from '@zeromem/core';
import { canonicalJson, replicaOf, type Replica } from '@zeromem/core/internal';
import type { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { connectRoom } from './connection.ts';
import { DocStore } from './doc-store.ts';
import type { ShareOptions } from './options.ts';
import { LocalChanges } from './local-changes.ts';
import { moveOldDocuments } from './old-documents.ts';
import { listPeers, type Peer, type PeerState } from './peers.ts';
import type { RecordCodec } from './record-codec.ts';
import { RecordMap } from './record-map.ts';
import { RemoteChanges } from './remote-changes.ts';
import { RoomKeyCheck } from './room-key-check.ts';
import { ShareErrors } from './share-errors.ts';
import { StoredDoc } from './stored-doc.ts';

/** Where a share stands. `failed` is final (see `error`); `closed` after `close()`. */
export type ShareStatus = 'connecting' | 'connected' | 'offline' | 'failed' | 'closed';

/** Origin of the changes this replica makes to the document. */
const LOCAL = Symbol('zeromem-local');
/** Origin of the stored document state applied on start. */
const LOAD = Symbol('zeromem-load');
/** What a share is made of (see `shareNamespace`). */
export interface SharedNamespaceParts {
  memory: Memory;
  namespace: Namespace;
  /** The relay room: the namespace key. */
  room: string;
  opts: ShareOptions;
  codec: RecordCodec;
  readOnly: boolean;
  /** Called once the share closed. */
  onClosed: () => void;
}

/**
 * An open share of a namespace (see `shareNamespace`): its sync state, its peers, and
 * `close()`. Two loops move changes: {@link LocalChanges} from the store to the document,
 * {@link RemoteChanges} from the document to the store; a step runs both, in turn.
 */
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

  readonly #replica: Replica;
  readonly #memoryName: string;
  /** Stops hearing of the memory's writes. */
  #stopWatching: (() => void) | undefined;
  readonly #opts: ShareOptions;
  readonly #stored: StoredDoc;
  readonly #doc = new Y.Doc({ gc: true });
  readonly #map: RecordMap;
  readonly #records: Y.Map<unknown>;
  readonly #keyCheck: RoomKeyCheck;
  #provider: WebsocketProvider | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #local: LocalChanges;
  readonly #remote: RemoteChanges;
  #fullReconcile = false;
  /**
   * The audit log may hold local changes the document lacks: set by this memory's writes
   * (heard at once), by the poll (other processes' writes), on sync with the relay and on
   * flush. A step that only applies another replica's change skips reading the audit log.
   */
  #localPending = true;
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
  constructor({ memory, namespace, room, opts, codec, readOnly, onClosed }: SharedNamespaceParts) {
    this.#onClosed = onClosed;
    this.#errors = new ShareErrors(opts.onError);
    this.#replica = replicaOf(memory);
    this.#memoryName = memory.name;
    this.namespace = namespace;
    this.room = room;
    this.#opts = opts;
    this.#stored = new StoredDoc(new DocStore(this.#replica.docLog, room), room, this.#doc, (err) => this.#errors.report(err));
    this.readOnly = readOnly;
    this.#map = new RecordMap(this.#doc, codec);
    this.#records = this.#map.records;
    this.#keyCheck = new RoomKeyCheck(this.#doc, this.#records, codec, room, readOnly, LOCAL);
    const context = {
      memory,
      namespace,
      room,
      readOnly,
      doc: this.#doc,
      map: this.#map,
      local: LOCAL,
      errors: this.#errors,
      markRemote: (id: string) => this.#remote.mark(id),
      saveCursor: (cursor: number) => this.#stored.save(cursor),
      replica: this.#replica,
      stored: this.#stored,
    };
    this.#local = new LocalChanges(context);
    this.#remote = new RemoteChanges(context, this.#local);
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
    await moveOldDocuments(this.#memoryName, this.room, this.#replica.docLog);
    const storedCursor = await this.#stored.load(LOAD);
    this.#local.cursor = storedCursor ?? 0;
    if (storedCursor !== undefined) {
      // A crash may have come between storing a remote change and applying it: compare all,
      // forgotten ids too (on read-only replicas as well: they apply forgets like any other).
      for (const id of this.#records.keys()) this.#remote.mark(id);
      for (const id of this.#map.forgotten.keys()) this.#remote.mark(id);
      this.#fullReconcile = !this.readOnly;
    }
    this.#doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin === LOAD) return;
      this.#stored.updated(update);
      // This replica's own changes are stored at once (with the cursor the loop that made
      // them moves next); another replica's are stored in the transaction that applies them
      // to the store (remote-changes.ts), or by the step's save.
      if (origin === LOCAL) this.#stored.saveSoon();
    });
    this.#records.observe((event, transaction) => {
      for (const [id, change] of event.changes.keys) {
        // A forget's content must leave the stored document now; an overwritten text soon; other overwrites may wait.
        if (change.action === 'delete') this.#stored.deleted();
        else if (change.action === 'update') this.#stored.overwritten(changesText(change.oldValue, this.#records.get(id)));
      }
      if (transaction.origin === LOCAL) return;
      for (const id of event.keysChanged) this.#remote.mark(id);
      void this.#schedule();
    });
    this.#map.forgotten.observe((event, transaction) => {
      if (transaction.origin === LOCAL) return;
      for (const id of event.keysChanged) this.#remote.mark(id);
      void this.#schedule();
    });
    this.#keyCheck.watch(() => void this.#schedule());
    // Writes of this process (and, in browsers, of other tabs) are seen at once; the poll
    // catches any other writer.
    this.#stopWatching = this.#replica.onAuditWrites(() => this.#sendLocal());
    this.#connect();
    await this.#schedule();
    this.#timer = setInterval(() => this.#sendLocal(), this.#opts.pollMs ?? 50);
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
        this.#sendLocal(); // what waited for the relay goes now
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
    this.#localPending = true;
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
    this.#localPending = true;
    if (this.#status !== 'failed') await this.#schedule();
    this.#status = 'closed'; // steps scheduled from now on do nothing
    this.#provider?.destroy(); // no remote update arrives after this
    await this.#chain; // a step already running finishes
    await this.#stored.stored(); // and what it changed is stored
    await this.#stored.compactIfOverwritten(); // no old version outlives the session
    this.#doc.destroy();
    this.#onClosed();
  }

  /** The audit log may hold local changes to send: a step reads it. */
  #sendLocal(): void {
    this.#localPending = true;
    void this.#schedule();
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
    const canSend = () => this.#canSend();
    if (this.#localPending) {
      this.#localPending = false; // a write heard from now on sets it again for the next step
      try {
        await this.#local.send(canSend);
      } catch (err) {
        this.#localPending = true;
        throw err;
      }
      if (!canSend()) this.#localPending = true; // offline or read-only: read again next time
    }
    // Offline, forgets and overwrites still take the old text out of the stored document now.
    if (!this.readOnly && !canSend()) await this.#local.eraseOffline();
    if (this.#fullReconcile) {
      this.#fullReconcile = false;
      await this.#local.markUnshared();
    }
    await this.#remote.apply(canSend);
    this.#stored.save(this.#local.cursor);
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

  /** Fails the share for good: stops its loops and the connection, and rejects `synced`. */
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
