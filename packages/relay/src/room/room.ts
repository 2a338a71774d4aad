import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate, removeAwarenessStates } from 'y-protocols/awareness';
import * as Y from 'yjs';
import { CLOSE, RelayError } from '@zeromem/protocol';
import type { Logger } from '../log.ts';
import { type Peer, send } from './peer.ts';
import { type AwarenessEntry, type IncomingMessage, awarenessEntries, awarenessMessage, encodeAwarenessEntries, decodeMessage, syncStep1Message, syncStep2Message, updateMessage } from './protocol.ts';
import type { RoomStorage, StoredRoom } from '../storage/room-storage.ts';
import { CommitBatch } from './commit-batch.ts';
import type { SharedCommit } from '../storage/shared-commit.ts';
import { dropPending, pendingBytes, withoutPending } from './pending.ts';
import type { RoomPeers } from '../cluster/coordination.ts';
import { InstanceFeed } from '../cluster/instance-feed.ts';
import { AwarenessQuota } from './awareness-quota.ts';

/** Limits a room enforces. */
export interface RoomLimits {
  maxDocumentBytes: number;
  maxPendingBytes: number;
  maxBufferedBytes: number;
  maxAwarenessBytes: number;
  maxAwarenessStatesPerSubject: number;
  maxAwarenessBytesPerSubject: number;
  maxAwarenessStatesPerRoom: number;
  maxAwarenessBytesPerRoom: number;
  compactEvery: number;
  maxUpdatesPerCommit: number;
}

/** Hooks of {@link Room.open}. */
export interface RoomHooks {
  /** Hears a storage failure no caller would (a group commit at the end of a turn): the room must then be unloaded. */
  failed(err: Error): void;
  /** Other instances, when there are. */
  peers?: RoomPeers;
  /** Awareness held per token subject, shared by every room of the instance (a room alone gets its own). */
  awarenessQuota?: AwarenessQuota;
  /**
   * Hears the time the room spent for a subject outside the handling of its messages
   * (loading the room for its socket, answering its sync step 1 once durable, forwarding
   * what it changed once stored, encoding a compaction it triggered), so that it counts against the
   * subject's CPU budget too. The shared durable write is nobody's: one per turn of the
   * event loop, whoever's updates it holds.
   */
  charge?(subject: string, ms: number): void;
}

/** Origin of changes that came from another instance (already stored, never stored again). */
const REMOTE = Symbol('another relay instance');

/**
 * How long the clock of a removed awareness client id is kept: what y-protocols waits
 * before it drops a state nobody renewed, far more than an echo takes to come back.
 */
const REMOVED_CLOCK_MS = 30_000;

/** Awareness changes as y-protocols reports them. */
interface AwarenessChange {
  added: number[];
  updated: number[];
  removed: number[];
}

/** What an awareness update would add to a room and to its sender's subject (negative: remove). */
interface AwarenessGrowth {
  roomStates: number;
  roomBytes: number;
  subjectStates: number;
  subjectBytes: number;
}

/**
 * One shared namespace: its Y.Doc (gc on, so deleted content is dropped from memory and
 * from the next compaction), its awareness, and the peers connected to it.
 *
 * Every change a peer sends is applied, then stored (fsynced), and only then forwarded:
 * nothing another peer has seen can be lost by a crash of the relay. Changes are stored by
 * group commit ({@link CommitBatch}): one durable write for the changes of every message
 * read in one turn of the event loop, shared with the other rooms' ({@link SharedCommit});
 * sync answers wait for it too, so no peer is sent a state that is not on disk.
 */
export class Room {
  readonly doc = new Y.Doc({ gc: true });
  readonly awareness = new Awareness(this.doc);
  readonly peers = new Set<Peer>();
  /** Writes refused from read-only peers (non-empty updates only). */
  refusedWrites = 0;
  private storedBytes: number;
  private storedUpdates: number;
  /** Whether updates were stored since the last compaction (or load). */
  private dirty = false;
  private readonly batch: CommitBatch;
  /** Number of the last update this instance stored or loaded (compaction in SQLite replaces up to it). */
  private lastStored: number;
  /** The other instances' numbered updates: which the document holds (several instances only). */
  private readonly feed: InstanceFeed;
  /** The task running now and those queued behind it (see {@link intake}); undefined when idle. */
  private tail: Promise<void> | undefined;
  /** Whether a compaction for `compactEvery` waits in the intake (one is enough). */
  private compactionQueued = false;
  /** Subject of the last update applied: a compaction `compactEvery` triggers is charged to it. */
  private lastWriter: string | undefined;
  private destroyed = false;
  /** Each current awareness state: who published it (undefined: another instance) and its bytes. */
  private readonly awarenessHeld = new Map<number, { peer: Peer | undefined; bytes: number }>();
  /** Bytes of the current awareness states. */
  private awarenessBytes = 0;
  /**
   * Removed client ids whose clock is still kept, oldest first: when they were removed, and
   * the subject whose state it was (whose awareness bound it counts against meanwhile).
   */
  private readonly removedAt = new Map<number, { at: number; subject: string | undefined }>();
  /** Sizes of the states of the awareness update being applied. */
  private incomingSizes: Map<number, number> | undefined;
  private readonly awarenessQuota: AwarenessQuota;

  /**
   * Loads the room's stored updates and returns it; rejects with STORAGE_FAILED when they
   * cannot be read (or STORAGE_UNAVAILABLE when the storage cannot be reached).
   */
  static async open(name: string, store: RoomStorage, appends: SharedCommit, limits: RoomLimits, log: Logger, hooks: RoomHooks, loadedFor?: string): Promise<Room> {
    // Loading a big room is the most a connect can cost: the reading (synchronous with
    // SQLite, inside the call) and the decoding are charged to the subject that asked for it.
    const charge = (start: number): void => {
      if (loadedFor !== undefined) hooks.charge?.(loadedFor, performance.now() - start);
    };
    let start = performance.now();
    const loading = store.load(name);
    charge(start);
    const stored = await loading;
    start = performance.now();
    try {
      return new Room(name, store, appends, limits, log, hooks, stored);
    } finally {
      charge(start);
    }
  }

  private constructor(
    readonly name: string,
    private readonly store: RoomStorage,
    appends: SharedCommit,
    private readonly limits: RoomLimits,
    private readonly log: Logger,
    private readonly hooks: RoomHooks,
    stored: StoredRoom,
  ) {
    this.feed = new InstanceFeed(
      stored.head,
      (update) => {
        this.applyStored([update]);
        this.storedBytes += update.byteLength;
        this.storedUpdates++;
      },
      () => this.intake(() => this.catchUp(), (err) => this.catchUpFailed(err)),
    );
    this.lastStored = stored.head;
    this.awarenessQuota = hooks.awarenessQuota ?? new AwarenessQuota(limits.maxAwarenessStatesPerSubject, limits.maxAwarenessBytesPerSubject);
    this.batch = new CommitBatch(
      limits.maxUpdatesPerCommit,
      async (changes) => {
        const head = await appends.append(name, changes);
        this.lastStored = Math.max(this.lastStored, head);
        this.storedUpdates += changes.length;
        this.dirty = true;
        if (hooks.peers) {
          this.feed.holds(head - changes.length + 1, changes.length);
          hooks.peers.stored(head - changes.length + 1, changes);
        }
      },
      () => {
        if (this.storedUpdates < this.limits.compactEvery || this.compactionQueued) return;
        this.compactionQueued = true;
        this.intake(
          () => {
            this.compactionQueued = false;
            return this.compact(this.lastWriter);
          },
          (err) => this.log.error('compaction failed', { room: name, error: err.message }),
        );
      },
      (err) => hooks.failed(err),
    );
    // The relay itself never publishes awareness.
    this.awareness.setLocalState(null);
    try {
      this.doc.transact(() => {
        for (const update of stored.updates) Y.applyUpdate(this.doc, update);
      });
    } catch (err) {
      // Never serve a part of the document, nor compact over the rest: the room stays unloaded.
      this.destroy();
      throw new RelayError('STORAGE_FAILED', `A stored update of room ${JSON.stringify(name)} cannot be read: ${(err as Error).message}`, { cause: err });
    }
    this.storedBytes = stored.bytes;
    this.storedUpdates = stored.updates.length;
    // A room left uncompacted (by a crash) is compacted at its next chance.
    this.dirty = stored.updates.length > 1;
    this.awareness.on('update', (change: AwarenessChange, origin: unknown) => this.forwardAwareness(change, origin));
  }

  /**
   * Runs `task` after every task given before it: at once (synchronously) when none is
   * running, else queued. Messages, compactions and changes from other instances go
   * through here, so a compaction waiting for storage sees no message in between.
   * `failed` hears what the task throws or rejects with.
   */
  intake(task: () => void | Promise<void>, failed: (err: Error) => void): void {
    const run = async (): Promise<void> => {
      if (this.destroyed) return;
      try {
        await task();
      } catch (err) {
        failed(err as Error);
      }
    };
    if (this.tail) {
      this.tail = this.tail.then(run);
      const mine = this.tail;
      void mine.then(() => {
        if (this.tail === mine) this.tail = undefined;
      });
      return;
    }
    let result: void | Promise<void>;
    try {
      result = task();
    } catch (err) {
      failed(err as Error);
      return;
    }
    if (result instanceof Promise) {
      const mine = result.catch((err: Error) => failed(err));
      this.tail = mine;
      void mine.then(() => {
        if (this.tail === mine) this.tail = undefined;
      });
    }
  }

  /** Resolves once every task given so far has run. */
  async idle(): Promise<void> {
    while (this.tail) await this.tail;
  }

  /** Adds a peer and starts the sync handshake (read-write peers are asked for what they have). */
  join(peer: Peer): void {
    this.peers.add(peer);
    if (peer.access === 'read-write') this.send(peer, syncStep1Message(this.doc));
    const states = [...this.awareness.getStates().keys()];
    if (states.length > 0) this.send(peer, awarenessMessage(this.awareness, states));
  }

  /** Removes a peer and its awareness states. */
  leave(peer: Peer): void {
    if (!this.peers.delete(peer)) return;
    if (peer.awarenessIds.size > 0) removeAwarenessStates(this.awareness, [...peer.awarenessIds], null);
  }

  /** Handles one binary message of `peer`; a malformed one closes its socket with 4400. Give it through {@link intake}. */
  receive(peer: Peer, data: Uint8Array): void | Promise<void> {
    let message: IncomingMessage;
    try {
      message = decodeMessage(data);
    } catch (err) {
      this.log.warn('malformed message', { room: this.name, subject: peer.subject, error: (err as Error).message });
      peer.socket.close(CLOSE.badMessage, 'malformed message');
      return;
    }
    switch (message.kind) {
      case 'sync-step-1': {
        // Answered once everything in the document is durable. Encoding it (the whole
        // document for a new client) is the asker's cost: measured with this message when
        // answered at once, else charged when it is.
        const answer = (): void => this.send(peer, () => withoutPending(this.doc, () => syncStep2Message(this.doc, message.stateVector)));
        let later = false;
        this.whenDurable(() => (later ? this.measured(peer.subject, answer) : answer()));
        later = true;
        return;
      }
      case 'update':
        return this.receiveUpdate(peer, message.update);
      case 'awareness':
        this.receiveAwareness(peer, message.update, message.entries);
        return;
      case 'query-awareness':
        this.send(peer, () => awarenessMessage(this.awareness, [...this.awareness.getStates().keys()]));
        return;
    }
  }

  /**
   * Replaces the room's stored updates with one encoding of the current document. With gc
   * on, content deleted from the document is not in that encoding, so after this it is
   * gone from storage too. Pending updates (waiting for a dependency) are not written:
   * they were never stored nor forwarded. With several instances, one compacts at a time
   * (a lease), and what others stored meanwhile is read and merged in first. Give it
   * through {@link intake}, so no message is applied while it waits for storage. The
   * encoding is charged to `chargeTo`, the subject whose leaving or writing triggered it.
   */
  async compact(chargeTo?: string): Promise<void> {
    await this.batch.flush();
    const lease = this.hooks.peers ? await this.hooks.peers.lease() : { release() {} };
    if (!lease) return;
    try {
      // The encoding is charged; the durable write, as every one, is nobody's (an fsync here
      // takes 20-50 ms under load: a well-behaved writer would exceed its own budget).
      const result = await this.store.compact(this.name, this.hooks.peers ? this.feed.head : this.lastStored, (missing) => {
        const start = performance.now();
        try {
          this.applyStored(missing);
          return withoutPending(this.doc, () => Y.encodeStateAsUpdate(this.doc));
        } finally {
          if (chargeTo !== undefined) this.hooks.charge?.(chargeTo, performance.now() - start);
        }
      });
      this.dirty = false;
      if (!result) return;
      this.feed.caughtUp(result.head);
      this.storedBytes = result.bytes;
      this.storedUpdates = 1;
      this.hooks.peers?.compacted(result.head, result.bytes);
      this.log.debug('compacted', { room: this.name, bytes: result.bytes });
    } finally {
      lease.release();
    }
  }

  /**
   * Stores what waits for its group commit, then compacts if anything was stored since the
   * last compaction (with several instances, by any of them).
   */
  async compactIfChanged(chargeTo?: string): Promise<void> {
    await this.batch.flush();
    if (this.dirty || (this.hooks.peers && this.storedUpdates > 1)) await this.compact(chargeTo);
  }

  /** Another instance stored these updates, numbered from `first`: apply them in order (reading a gap from storage) and forward them. */
  fromOtherInstance(first: number, updates: readonly Uint8Array[]): void {
    this.feed.receive(first, updates);
  }

  /** Another instance compacted the room: its stored size is now that state's. */
  compactedElsewhere(head: number, bytes: number): void {
    if (head < this.feed.head) return;
    this.storedBytes = bytes;
    this.storedUpdates = 1;
    this.dirty = false;
  }

  /** An awareness update another instance's socket sent. */
  awarenessFromOtherInstance(update: Uint8Array): void {
    try {
      const entries = this.withoutVoidRemovals(awarenessEntries(update)); // checked like a socket's: another instance may run older code
      if (entries.length === 0) return;
      const growth = this.awarenessGrowth(undefined, entries);
      if (growth === 'taken' || !this.roomHasRoomFor(growth)) {
        this.log.debug('awareness from another instance refused: room full', { room: this.name });
        return;
      }
      this.applyAwareness(entries, REMOTE);
    } catch (err) {
      this.log.warn('malformed awareness from another instance', { room: this.name, error: (err as Error).message });
    }
  }

  /** Reads what other instances stored after this document's head (a message lost, Redis restarted) and applies it. */
  async catchUp(): Promise<void> {
    this.feed.reading();
    const known = this.feed.head;
    const since = await this.store.since(this.name, known);
    if (this.destroyed) return;
    this.applyStored(since.updates);
    this.storedBytes += since.bytes;
    this.storedUpdates += since.updates.length;
    this.feed.caughtUp(since.head);
  }

  /** The head this instance's document is known to hold everything up to. */
  get head(): number {
    return this.feed.head;
  }

  /** Frees the document and awareness (after the last peer left, or a storage failure: what waits for its write is dropped). */
  destroy(): void {
    this.destroyed = true;
    // Its awareness is gone with it: what its peers held no longer counts against their subjects.
    for (const id of [...this.awarenessHeld.keys()]) this.unhold(id);
    for (const id of [...this.removedAt.keys()]) this.forgetRemoved(id);
    this.feed.close();
    this.batch.discard();
    this.awareness.destroy();
    this.doc.destroy();
  }

  private catchUpFailed(err: Error): void {
    // The next poll of the heads (or the next message) tries again.
    this.log.warn('reading updates of other instances failed', { room: this.name, error: err.message });
  }

  /** Applies updates that are stored already (by another instance) and forwards what changed to every socket here. */
  private applyStored(updates: readonly Uint8Array[]): void {
    if (updates.length === 0) return;
    const changes: Uint8Array[] = [];
    const collect = (change: Uint8Array, origin: unknown): void => {
      if (origin === REMOTE) changes.push(change);
    };
    this.doc.on('update', collect);
    try {
      for (const update of updates) Y.applyUpdate(this.doc, update, REMOTE);
    } finally {
      this.doc.off('update', collect);
    }
    for (const change of changes) {
      const message = updateMessage(change);
      for (const peer of this.peers) this.send(peer, message);
    }
  }

  /** Runs `deliver` once nothing in the document waits for its write (changes applied meanwhile wait too). */
  private whenDurable(deliver: () => void): void {
    this.batch.afterCommit(() => {
      if (this.batch.idle) deliver();
      else this.whenDurable(deliver);
    });
  }

  private receiveUpdate(peer: Peer, update: Uint8Array): void | Promise<void> {
    if (peer.access !== 'read-write') {
      // y-websocket clients always answer the handshake with a (usually empty) step 2.
      if (!isEmptyUpdate(update)) {
        this.refusedWrites++;
        this.log.debug('write refused: read-only token', { room: this.name, subject: peer.subject, bytes: update.byteLength });
      }
      return;
    }
    // Compaction is expensive (full encoding, rewrite): only worth it when something was
    // stored since the last one; otherwise it cannot free more than it did.
    if (this.sizeWith(update) > this.limits.maxDocumentBytes) return this.compactIfChanged(peer.subject).then(() => this.applyUpdate(peer, update));
    this.applyUpdate(peer, update);
  }

  /** Pending updates are held in memory and merged again on every later update: they count. */
  private sizeWith(update: Uint8Array): number {
    return this.storedBytes + this.batch.waitingBytes + pendingBytes(this.doc) + update.byteLength;
  }

  private applyUpdate(peer: Peer, update: Uint8Array): void {
    if (this.sizeWith(update) > this.limits.maxDocumentBytes) {
      this.log.warn('document too large', { room: this.name, subject: peer.subject, bytes: this.sizeWith(update) });
      peer.socket.close(CLOSE.documentTooLarge, 'document too large');
      return;
    }
    this.lastWriter = peer.subject;
    const effective: Uint8Array[] = [];
    const collect = (change: Uint8Array, origin: unknown): void => {
      if (origin === peer) effective.push(change);
    };
    let malformed: Error | undefined;
    this.doc.on('update', collect);
    try {
      Y.applyUpdate(this.doc, update, peer);
    } catch (err) {
      malformed = err as Error;
    } finally {
      this.doc.off('update', collect);
    }
    // Whatever reached the document is stored and forwarded, even if the rest was garbage.
    for (const change of effective) {
      this.batch.add(change, () =>
        this.measured(peer.subject, () => {
          this.storedBytes += change.byteLength;
          const message = updateMessage(change);
          for (const other of this.peers) if (other !== peer) this.send(other, message);
        }),
      );
    }
    if (malformed) {
      this.log.warn('malformed update', { room: this.name, subject: peer.subject, error: malformed.message });
      peer.socket.close(CLOSE.badMessage, 'malformed update');
    } else if (pendingBytes(this.doc) > this.limits.maxPendingBytes) {
      // Dependencies that do not come: drop what waits for them (it was neither stored nor forwarded).
      this.log.warn('too many pending updates, dropped', { room: this.name, subject: peer.subject, bytes: pendingBytes(this.doc) });
      dropPending(this.doc);
      peer.socket.close(CLOSE.documentTooLarge, 'too many updates with missing dependencies');
    }
  }

  /**
   * Applies and forwards an awareness update, from read-only sockets too: a read-only
   * replica must show as online to the others. Awareness is arbitrary JSON sent to every
   * peer, so its size is bounded, a socket may only speak for its own client ids, its
   * subject may hold only so many states and bytes (past that the socket is closed, 4413,
   * nothing applied), and a room only so many (past that the update is not applied, the
   * socket stays).
   */
  private receiveAwareness(peer: Peer, update: Uint8Array, received: AwarenessEntry[]): void {
    if (update.byteLength > this.limits.maxAwarenessBytes) {
      this.log.warn('awareness update too large', { room: this.name, subject: peer.subject, bytes: update.byteLength });
      peer.socket.close(CLOSE.messageTooBig, 'awareness update too large');
      return;
    }
    this.forgetOldRemovals();
    const entries = this.withoutVoidRemovals(received);
    if (entries.length === 0) return;
    const growth = this.awarenessGrowth(peer, entries);
    if (growth === 'taken') {
      this.log.debug('awareness refused: client id of another socket', { room: this.name, subject: peer.subject });
      return;
    }
    if (!this.awarenessQuota.allows(peer.subject, growth.subjectStates, growth.subjectBytes)) {
      this.log.warn('awareness refused: over the bound of its token subject', { room: this.name, subject: peer.subject, states: growth.subjectStates, bytes: growth.subjectBytes });
      peer.socket.close(CLOSE.documentTooLarge, 'too much awareness for this token subject');
      return;
    }
    if (!this.roomHasRoomFor(growth)) {
      this.log.debug('awareness refused: room full', { room: this.name, subject: peer.subject, states: this.awarenessHeld.size, bytes: this.awarenessBytes });
      return;
    }
    this.applyAwareness(entries, peer);
  }

  /**
   * Drops the removals of client ids that have no state here (y-websocket clients send back
   * every change they hear, removals included): y-protocols would keep a clock for each,
   * without any event, however many a socket sends.
   */
  private withoutVoidRemovals(entries: AwarenessEntry[]): AwarenessEntry[] {
    return entries.filter((entry) => !entry.removed || this.awareness.states.has(entry.clientId));
  }

  /**
   * What applying `entries` from `peer` (undefined: another instance) would add to the
   * room's awareness and to the peer's subject: states and bytes (negative when it removes
   * more); `taken` when it speaks for a client id another socket here published. Clocks
   * are not looked at, so an entry y-protocols will ignore as stale counts: never less.
   */
  private awarenessGrowth(peer: Peer | undefined, entries: AwarenessEntry[]): AwarenessGrowth | 'taken' {
    const growth: AwarenessGrowth = { roomStates: 0, roomBytes: 0, subjectStates: 0, subjectBytes: 0 };
    const after = new Map<number, { peer: Peer | undefined; bytes: number } | undefined>();
    for (const { clientId, bytes, removed } of entries) {
      const held = this.awarenessHeld.get(clientId);
      if (held?.peer && held.peer !== peer) return 'taken';
      const before = after.has(clientId) ? after.get(clientId) : held;
      const next = removed ? undefined : { peer, bytes };
      growth.roomStates += (next ? 1 : 0) - (before ? 1 : 0);
      growth.roomBytes += (next?.bytes ?? 0) - (before?.bytes ?? 0);
      // A removed state's clock still counts against its subject for a while (see rememberRemoved): removing frees only bytes.
      const mine = before !== undefined && before.peer === peer && peer !== undefined;
      const remembered = before === undefined && peer !== undefined && this.removedAt.get(clientId)?.subject === peer.subject;
      if (next) growth.subjectStates += mine || remembered ? 0 : 1;
      growth.subjectBytes += (next?.bytes ?? 0) - (mine ? before.bytes : 0);
      after.set(clientId, next);
    }
    return growth;
  }

  /** Whether the room's awareness stays within its bounds after `growth` (what does not grow always does). */
  private roomHasRoomFor(growth: AwarenessGrowth): boolean {
    return (
      (growth.roomStates <= 0 || this.awarenessHeld.size + growth.roomStates <= this.limits.maxAwarenessStatesPerRoom) &&
      (growth.roomBytes <= 0 || this.awarenessBytes + growth.roomBytes <= this.limits.maxAwarenessBytesPerRoom)
    );
  }

  private applyAwareness(entries: AwarenessEntry[], origin: Peer | typeof REMOTE): void {
    this.incomingSizes = new Map(entries.map((entry) => [entry.clientId, entry.bytes]));
    try {
      applyAwarenessUpdate(this.awareness, encodeAwarenessEntries(entries), origin);
    } finally {
      this.incomingSizes = undefined;
    }
  }

  private forwardAwareness({ added, updated, removed }: AwarenessChange, origin: unknown): void {
    const source = this.peers.has(origin as Peer) ? (origin as Peer) : undefined;
    for (const id of [...added, ...updated]) this.hold(id, source, this.incomingSizes?.get(id) ?? 0);
    const owners = removed.map((id) => this.awarenessHeld.get(id)?.peer?.subject);
    for (const id of removed) this.release(id);
    const changed = [...added, ...updated, ...removed];
    if (changed.length === 0) return;
    const message = awarenessMessage(this.awareness, changed);
    // Own sockets' changes (and their removal when they leave) go to the other instances; expiry ('timeout') happens on each.
    if (this.hooks.peers && origin !== REMOTE && origin !== 'timeout') this.hooks.peers.awareness(encodeAwarenessUpdate(this.awareness, changed));
    for (const peer of this.peers) if (peer !== source) this.send(peer, message);
    this.rememberRemoved(removed, owners);
  }

  /**
   * Keeps the clocks of removed client ids for {@link REMOVED_CLOCK_MS}, then forgets them.
   * y-protocols keeps one per client id ever seen, which a socket publishing new ids would
   * grow without end; forgetting at once would not do either: y-websocket clients send every
   * change they hear back, and the echo of an addition arriving after its removal would bring
   * the state back, to the echoing socket's account. Meanwhile each counts against the
   * awareness bound of the subject whose state it was (so a subject's churn of new ids is
   * bounded too), and a room keeps at most `maxAwarenessStatesPerRoom` of them.
   */
  private rememberRemoved(removed: readonly number[], owners: ReadonlyArray<string | undefined>): void {
    const now = performance.now();
    removed.forEach((id, i) => {
      if (id === this.awareness.clientID) return;
      this.forgetRemoved(id, false);
      const subject = owners[i];
      this.removedAt.set(id, { at: now, subject });
      if (subject !== undefined) this.awarenessQuota.add(subject, 1, 0);
    });
    this.forgetOldRemovals(now);
  }

  /** Forgets the removed ids kept past {@link REMOVED_CLOCK_MS}, and the oldest beyond the room's bound. */
  private forgetOldRemovals(now = performance.now()): void {
    for (const [id, { at }] of this.removedAt) {
      if (this.removedAt.size <= this.limits.maxAwarenessStatesPerRoom && now - at < REMOVED_CLOCK_MS) break;
      this.forgetRemoved(id);
    }
  }

  /** Stops keeping removed client `id` (and its clock, unless `clock` is false or it has a state again). */
  private forgetRemoved(id: number, clock = true): void {
    const kept = this.removedAt.get(id);
    if (!kept) return;
    this.removedAt.delete(id);
    if (kept.subject !== undefined) this.awarenessQuota.add(kept.subject, -1, 0);
    if (clock && !this.awareness.states.has(id)) this.awareness.meta.delete(id);
  }

  /** Records that client `id`'s current state, of `bytes`, is `peer`'s (undefined: another instance's). */
  private hold(id: number, peer: Peer | undefined, bytes: number): void {
    this.unhold(id);
    this.forgetRemoved(id, false);
    this.awarenessHeld.set(id, { peer, bytes });
    this.awarenessBytes += bytes;
    if (peer) {
      peer.awarenessIds.add(id);
      this.awarenessQuota.add(peer.subject, 1, bytes);
    }
  }

  /** Client `id` has no state any more. */
  private release(id: number): void {
    this.unhold(id);
    this.awarenessHeld.delete(id);
  }

  private unhold(id: number): void {
    const held = this.awarenessHeld.get(id);
    if (!held) return;
    this.awarenessBytes -= held.bytes;
    if (held.peer) {
      held.peer.awarenessIds.delete(id);
      this.awarenessQuota.add(held.peer.subject, -1, -held.bytes);
    }
  }

  /** Client ids whose awareness the room keeps (a state, or for a while the clock of a removed one): what its awareness costs in memory. */
  get awarenessClients(): number {
    return this.awareness.meta.size - (this.awareness.meta.has(this.awareness.clientID) ? 1 : 0);
  }

  /** Runs `work` done later for `subject`'s message and charges its time to `subject` (see {@link RoomHooks.charge}). */
  private measured(subject: string, work: () => void): void {
    const start = performance.now();
    try {
      work();
    } finally {
      this.hooks.charge?.(subject, performance.now() - start);
    }
  }

  /** Sends `message` (encoded only if it is sent); a peer that does not read is closed (4507). */
  private send(peer: Peer, message: Uint8Array | (() => Uint8Array)): void {
    if (send(peer, message, this.limits.maxBufferedBytes) === 'full') {
      this.log.warn('send buffer full', { room: this.name, subject: peer.subject, bufferedBytes: peer.socket.bufferedAmount });
    }
  }
}

/** An update with no structs and an empty delete set: `[0, 0]`. */
function isEmptyUpdate(update: Uint8Array): boolean {
  return update.byteLength === 2 && update[0] === 0 && update[1] === 0;
}
