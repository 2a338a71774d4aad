import { Awareness, applyAwarenessUpdate, removeAwarenessStates } from 'y-protocols/awareness';
import * as Y from 'yjs';
import { CLOSE } from './close-codes.ts';
import { RelayError } from './errors.ts';
import type { Logger } from './log.ts';
import { type Peer, send } from './peer.ts';
import { type IncomingMessage, awarenessMessage, decodeMessage, syncStep1Message, syncStep2Message, updateMessage } from './protocol.ts';
import type { RoomStore } from './store.ts';
import { CommitBatch } from './commit-batch.ts';
import { dropPending, pendingBytes, withoutPending } from './pending.ts';

/** Limits a room enforces. */
export interface RoomLimits {
  maxDocumentBytes: number;
  maxPendingBytes: number;
  maxBufferedBytes: number;
  maxAwarenessBytes: number;
  compactEvery: number;
  maxUpdatesPerCommit: number;
}

/** Awareness changes as y-protocols reports them. */
interface AwarenessChange {
  added: number[];
  updated: number[];
  removed: number[];
}

/**
 * One shared namespace: its Y.Doc (gc on, so deleted content is dropped from memory and
 * from the next compaction), its awareness, and the peers connected to it.
 *
 * Every change a peer sends is applied, then stored (fsynced), and only then forwarded:
 * nothing another peer has seen can be lost by a crash of the relay. Changes are stored by
 * group commit ({@link CommitBatch}): one durable write for the changes of every message
 * read in one turn of the event loop; sync answers wait for it too, so no peer is sent a
 * state that is not on disk.
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

  /**
   * Loads the room's stored updates; throws STORAGE_FAILED when they cannot be read.
   * `failed` hears a storage failure that no caller would (a group commit at the end of a
   * turn): the room must then be unloaded.
   */
  constructor(
    readonly name: string,
    private readonly store: RoomStore,
    private readonly limits: RoomLimits,
    private readonly log: Logger,
    failed: (err: Error) => void = () => {},
  ) {
    this.batch = new CommitBatch(
      limits.maxUpdatesPerCommit,
      (changes) => {
        store.appendMany(name, changes);
        this.storedUpdates += changes.length;
        this.dirty = true;
      },
      () => {
        if (this.storedUpdates >= this.limits.compactEvery) this.compact();
      },
      failed,
    );
    // The relay itself never publishes awareness.
    this.awareness.setLocalState(null);
    const stored = store.load(name);
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

  /** Handles one binary message of `peer`; a malformed one closes its socket with 4400. */
  receive(peer: Peer, data: Uint8Array): void {
    let message: IncomingMessage;
    try {
      message = decodeMessage(data);
    } catch (err) {
      this.log.warn('malformed message', { room: this.name, subject: peer.subject, error: (err as Error).message });
      peer.socket.close(CLOSE.badMessage, 'malformed message');
      return;
    }
    switch (message.kind) {
      case 'sync-step-1':
        // Answered once what was applied before it is durable.
        this.batch.afterCommit(() => this.send(peer, () => withoutPending(this.doc, () => syncStep2Message(this.doc, message.stateVector))));
        return;
      case 'update':
        this.receiveUpdate(peer, message.update);
        return;
      case 'awareness':
        this.receiveAwareness(peer, message.update, message.clientIds);
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
   * they were never stored nor forwarded.
   */
  compact(): void {
    this.batch.flush();
    this.dirty = false;
    const state = withoutPending(this.doc, () => Y.encodeStateAsUpdate(this.doc));
    this.store.replace(this.name, state);
    this.storedBytes = state.byteLength;
    this.storedUpdates = 1;
    this.log.debug('compacted', { room: this.name, bytes: state.byteLength });
  }

  /** Stores what waits for its group commit, then compacts if anything was stored since the last compaction. */
  compactIfChanged(): void {
    this.batch.flush();
    if (this.dirty) this.compact();
  }

  /** Frees the document and awareness (after the last peer left, or a storage failure: what waits for its write is dropped). */
  destroy(): void {
    this.batch.discard();
    this.awareness.destroy();
    this.doc.destroy();
  }

  private receiveUpdate(peer: Peer, update: Uint8Array): void {
    if (peer.access !== 'read-write') {
      // y-websocket clients always answer the handshake with a (usually empty) step 2.
      if (!isEmptyUpdate(update)) {
        this.refusedWrites++;
        this.log.debug('write refused: read-only token', { room: this.name, subject: peer.subject, bytes: update.byteLength });
      }
      return;
    }
    // Pending updates are held in memory and merged again on every later update: they count.
    const size = (): number => this.storedBytes + this.batch.waitingBytes + pendingBytes(this.doc) + update.byteLength;
    if (size() > this.limits.maxDocumentBytes) {
      // Compaction is expensive (full encoding, rewrite, WAL truncation): only worth it when
      // something was stored since the last one; otherwise it cannot free more than it did.
      this.compactIfChanged();
      if (size() > this.limits.maxDocumentBytes) {
        this.log.warn('document too large', { room: this.name, subject: peer.subject, bytes: size() });
        peer.socket.close(CLOSE.documentTooLarge, 'document too large');
        return;
      }
    }
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
      this.batch.add(change, () => {
        this.storedBytes += change.byteLength;
        const message = updateMessage(change);
        for (const other of this.peers) if (other !== peer) this.send(other, message);
      });
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
   * peer, so its size is bounded and a socket may only speak for its own client ids.
   */
  private receiveAwareness(peer: Peer, update: Uint8Array, clientIds: number[]): void {
    if (update.byteLength > this.limits.maxAwarenessBytes) {
      this.log.warn('awareness update too large', { room: this.name, subject: peer.subject, bytes: update.byteLength });
      peer.socket.close(CLOSE.messageTooBig, 'awareness update too large');
      return;
    }
    for (const id of clientIds) {
      for (const other of this.peers) {
        if (other !== peer && other.awarenessIds.has(id)) {
          this.log.debug('awareness refused: client id of another socket', { room: this.name, subject: peer.subject, clientId: id });
          return;
        }
      }
    }
    applyAwarenessUpdate(this.awareness, update, peer);
  }

  private forwardAwareness({ added, updated, removed }: AwarenessChange, origin: unknown): void {
    const source = [...this.peers].find((peer) => peer === origin);
    if (source) {
      for (const id of added) source.awarenessIds.add(id);
      for (const id of removed) source.awarenessIds.delete(id);
    }
    const changed = [...added, ...updated, ...removed];
    if (changed.length === 0) return;
    const message = awarenessMessage(this.awareness, changed);
    for (const peer of this.peers) if (peer !== source) this.send(peer, message);
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
