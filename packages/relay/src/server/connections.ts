import { type RawData, WebSocket } from 'ws';
import type { Admission } from '../auth/upgrade-auth.ts';
import { CLOSE } from '@zeromem/protocol';
import type { Coordination } from '../cluster/coordination.ts';
import type { ResolvedOptions } from '../options.ts';
import type { Peer } from '../room/peer.ts';
import { RATE_BURST_SECONDS, RateLimit } from '../room/rate-limit.ts';
import type { Room } from '../room/room.ts';
import { isStorageFailure } from '../storage/room-storage.ts';
import { BudgetSpent, type RoomCache } from './room-cache.ts';
import type { SubjectThrottle } from './subject-throttle.ts';

/**
 * The relay's open websockets: each joins its room once the room is loaded, has its
 * messages checked (expiry, binary, per-socket rates, its subject's CPU budget) and handed
 * to the room in order, leaves when it closes, and is pinged.
 */
export class Connections {
  constructor(
    private readonly config: ResolvedOptions,
    private readonly rooms: RoomCache,
    private readonly coordination: Coordination,
    private readonly throttle: SubjectThrottle,
    /** True once the relay stops: no message is heard any more. */
    private readonly stopping: () => boolean,
  ) {}

  /** Serves an admitted socket (its connection already counted for its subject). */
  async serve(socket: WebSocket, admission: Admission, connection: string): Promise<void> {
    const peer: Peer = {
      socket,
      ...admission,
      connection,
      awarenessIds: new Set(),
      alive: true,
      messageRate: new RateLimit(this.config.maxMessagesPerSecond, this.config.maxMessagesPerSecond * RATE_BURST_SECONDS),
      byteRate: new RateLimit(this.config.maxBytesPerSecond, Math.max(this.config.maxBytesPerSecond * RATE_BURST_SECONDS, this.config.maxMessageBytes)),
    };
    // What the socket sends while its room loads, or while its subject waits for its CPU budget, waits in order.
    let room: Room | undefined;
    const inbox: Array<[RawData, boolean]> = [];
    let closed = false;
    const drain = (): void => {
      if (socket.isPaused) socket.resume();
      while (room && inbox.length > 0 && !closed) {
        if (this.throttle.overdrawn(peer.subject)) {
          // Nothing more is read from this socket (TCP pushes back on the sender) until the subject is within its budget.
          socket.pause();
          this.throttle.whenWithin(peer.subject, drain);
          return;
        }
        const [data, isBinary] = inbox.shift()!;
        this.message(room, peer, data, isBinary);
      }
    };
    const expiry = closeAtExpiry(peer);
    socket.on('pong', () => (peer.alive = true));
    socket.on('message', (data: RawData, isBinary: boolean) => {
      inbox.push([data, isBinary]);
      if (inbox.length === 1 && !socket.isPaused) drain();
    });
    socket.on('close', () => {
      closed = true;
      expiry.cancel();
      if (room) this.disconnect(room, peer);
      else this.coordination.releaseConnection(peer.subject, peer.connection);
    });
    socket.on('error', (err) => this.config.logger.warn('socket error', { room: admission.room, subject: peer.subject, error: err.message }));
    let opened: Room;
    try {
      opened = await this.rooms.open(admission.room, peer.subject);
    } catch (err) {
      if (err instanceof BudgetSpent) {
        this.config.logger.warn('room load refused: cpu budget spent', { room: admission.room, subject: peer.subject });
        socket.close(CLOSE.rateLimited, 'this token subject used its share of the relay: retry in a second');
        return;
      }
      const unavailable = (err as { code?: string }).code === 'STORAGE_UNAVAILABLE';
      if (unavailable) {
        this.config.logger.error('room cannot be loaded: storage unavailable', { room: admission.room, error: (err as Error).message });
        socket.close(CLOSE.storageUnavailable, 'storage unavailable, retry');
      } else {
        this.rooms.unreadable.add(admission.room);
        this.config.logger.error('room unreadable', { room: admission.room, error: (err as Error).message });
        socket.close(CLOSE.roomUnreadable, 'room unreadable');
      }
      return;
    }
    if (closed || socket.readyState !== WebSocket.OPEN) {
      // Gone while its room loaded: the room may now have no socket.
      if (opened.peers.size === 0) this.rooms.unload(opened, peer.subject);
      return;
    }
    this.rooms.unreadable.delete(admission.room);
    room = opened;
    // Joining sends the room's awareness (and a read-write peer a state vector): the joiner's cost.
    this.throttle.measure(peer.subject, () => opened.join(peer));
    this.config.logger.info('connected', { room: room.name, subject: peer.subject, access: peer.access });
    drain();
  }

  /** Pings every socket; one that did not answer the last ping is dropped. */
  pingAll(): void {
    for (const room of this.rooms.loaded()) {
      for (const peer of room.peers) {
        if (!peer.alive) peer.socket.terminate();
        else {
          peer.alive = false;
          peer.socket.ping();
        }
      }
    }
  }

  private message(room: Room, peer: Peer, data: RawData, isBinary: boolean): void {
    // A socket the relay is closing is not heard any more (ws still reads until the close handshake).
    if (this.stopping() || !this.rooms.holds(room) || peer.socket.readyState !== WebSocket.OPEN) return;
    if (Date.now() >= peer.expiresAt) {
      peer.socket.close(CLOSE.tokenExpired, 'token expired');
      return;
    }
    if (!isBinary) {
      peer.socket.close(CLOSE.badMessage, 'binary messages only');
      return;
    }
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    if (!peer.messageRate.take(1) || !peer.byteRate.take(bytes.byteLength)) {
      this.config.logger.warn('rate limit exceeded', { room: room.name, subject: peer.subject });
      peer.socket.close(CLOSE.rateLimited, 'rate limit exceeded');
      return;
    }
    room.intake(
      () => {
        if (!this.rooms.holds(room) || peer.socket.readyState !== WebSocket.OPEN) return;
        return this.throttle.measure(peer.subject, () => room.receive(peer, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
      },
      (err) => {
        // Only storage may fail a room; anything else is this peer's message and closes only it.
        if (isStorageFailure(err)) this.rooms.fail(room, err);
        else {
          this.config.logger.warn('message refused', { room: room.name, subject: peer.subject, error: err.message });
          peer.socket.close(CLOSE.badMessage, 'malformed message');
        }
      },
    );
  }

  private disconnect(room: Room, peer: Peer): void {
    this.coordination.releaseConnection(peer.subject, peer.connection);
    // Leaving forwards the removal of its awareness; encoding the compaction when the room empties is its cost too.
    this.throttle.measure(peer.subject, () => room.leave(peer));
    this.config.logger.info('disconnected', { room: room.name, subject: peer.subject });
    if (room.peers.size === 0) this.rooms.unload(room, peer.subject);
  }
}

/** Longest delay `setTimeout` takes (about 24.8 days); a later expiry re-arms the timer. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Closes the peer's socket with 4401 when its token expires, whether or not it sends anything. */
function closeAtExpiry(peer: Peer): { cancel(): void } {
  let timer: NodeJS.Timeout;
  const arm = (): void => {
    const left = peer.expiresAt - Date.now();
    if (left <= 0) {
      peer.socket.close(CLOSE.tokenExpired, 'token expired');
      return;
    }
    timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
    timer.unref();
  };
  arm();
  return { cancel: () => clearTimeout(timer) };
}
