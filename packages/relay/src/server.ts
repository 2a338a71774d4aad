import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import { CLOSE } from './close-codes.ts';
import { answerJson, refuseUpgrade } from './http-answers.ts';
import { type RelayOptions, type ResolvedOptions, resolveOptions } from './options.ts';
import type { Peer } from './peer.ts';
import { RATE_BURST_SECONDS, RateLimit } from './rate-limit.ts';
import { Room } from './room.ts';
import { RoomStore, isStorageFailure } from './store.ts';
import { type Admission, admit } from './upgrade-auth.ts';

/** Counters of a running relay, also served by `GET /healthz`. */
export interface RelayStats {
  /** Rooms with at least one open socket (loaded in memory). */
  rooms: number;
  /** Open websockets. */
  connections: number;
  /** Non-empty updates refused from read-only sockets since start. */
  refusedWrites: number;
  /**
   * Rooms whose stored document could not be read at their last load (their clients are
   * closed with 4422; the log names them). `/healthz` then says `degraded`.
   */
  unreadableRooms: number;
  /** Updates stored since start. */
  storedUpdates: number;
  /**
   * Durable (fsynced) writes since start: appends and compactions. With group commit one
   * write stores the updates of many messages.
   */
  durableWrites: number;
  /** Whole seconds since the relay started. */
  uptimeSeconds: number;
}

/** A running relay. */
export interface Relay {
  /** The port it listens on (the chosen one when started with port 0). */
  readonly port: number;
  /** `ws://host:port`, the `serverUrl` for a y-websocket client. */
  readonly url: string;
  /**
   * The relay's counters right now (a fresh object each call): the same numbers
   * `GET /healthz` serves, without its `status`.
   */
  stats(): RelayStats;
  /**
   * Compacts a room now (loading it if no socket has it open), so content deleted from
   * its document is gone from storage. Rooms are also compacted every `compactEvery`
   * updates, when their last socket closes, and at shutdown.
   */
  compact(room: string): void;
  /** Stops accepting, compacts and stores every open room, closes the sockets (1001) and the database. */
  close(): Promise<void>;
}

/**
 * Starts a relay: an HTTP server answering `GET /healthz` and websocket upgrades to
 * `/<encodeURIComponent(room)>` that carry a token. Throws a {@link RelayError} with code
 * INVALID_CONFIG (options) or STORAGE_FAILED (database); rejects if it cannot listen.
 */
export async function startRelay(options: RelayOptions): Promise<Relay> {
  const config = resolveOptions(options);
  const store = new RoomStore(config.dataDir);
  const relay = new RunningRelay(config, store);
  try {
    await relay.listen();
  } catch (err) {
    store.close();
    throw err;
  }
  return relay;
}

class RunningRelay implements Relay {
  private readonly http: Server;
  private readonly wss: WebSocketServer;
  private readonly rooms = new Map<string, Room>();
  private readonly connectionsBySubject = new Map<string, number>();
  private readonly unreadable = new Set<string>();
  private readonly started = Date.now();
  private pinger: NodeJS.Timeout | undefined;
  private refusedFromClosedRooms = 0;
  private closing: Promise<void> | undefined;
  port = 0;
  url = '';

  constructor(
    private readonly config: ResolvedOptions,
    private readonly store: RoomStore,
  ) {
    this.http = createServer((request, response) => {
      const path = (request.url ?? '/').split('?')[0];
      if (path === '/healthz' && (request.method === 'GET' || request.method === 'HEAD')) {
        const stats = this.stats();
        const status = this.closing ? 'stopping' : stats.unreadableRooms > 0 ? 'degraded' : 'ok';
        answerJson(response, this.closing ? 503 : 200, { status, ...stats });
      } else {
        answerJson(response, 404, { error: 'not found: websocket upgrades go to /<room>, health to GET /healthz' });
      }
    });
    this.wss = new WebSocketServer({ noServer: true, maxPayload: config.maxMessageBytes, perMessageDeflate: false });
    this.http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(request, socket, head));
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(this.config.port, this.config.host, () => {
        this.http.off('error', reject);
        this.port = (this.http.address() as AddressInfo).port;
        const host = this.config.host.includes(':') ? `[${this.config.host}]` : this.config.host;
        this.url = `ws://${host}:${this.port}`;
        this.pinger = setInterval(() => this.ping(), this.config.pingIntervalMs);
        this.pinger.unref();
        this.config.logger.info('listening', { host: this.config.host, port: this.port, url: this.url });
        resolve();
      });
    });
  }

  stats(): RelayStats {
    let connections = 0;
    let refusedWrites = this.refusedFromClosedRooms;
    for (const room of this.rooms.values()) {
      connections += room.peers.size;
      refusedWrites += room.refusedWrites;
    }
    return {
      rooms: this.rooms.size,
      connections,
      refusedWrites,
      unreadableRooms: this.unreadable.size,
      storedUpdates: this.store.storedUpdates,
      durableWrites: this.store.durableWrites,
      uptimeSeconds: Math.round((Date.now() - this.started) / 1000),
    };
  }

  compact(name: string): void {
    const loaded = this.rooms.get(name);
    if (loaded) {
      loaded.compact();
      return;
    }
    const room = new Room(name, this.store, this.config, this.config.logger);
    try {
      room.compact();
    } finally {
      room.destroy();
    }
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const log = this.config.logger;
    if (this.closing) return refuseUpgrade(socket, 503, 'relay shutting down');
    let decision: Admission | { status: number; reason: string; headers?: Record<string, string> };
    try {
      decision = await admit(request, this.config.secret);
    } catch (err) {
      log.error('upgrade failed', { error: (err as Error).message });
      return refuseUpgrade(socket, 500, 'internal error');
    }
    if (this.closing) return refuseUpgrade(socket, 503, 'relay shutting down');
    if ('status' in decision) {
      log.info('upgrade refused', { status: decision.status, reason: decision.reason, remote: request.socket.remoteAddress });
      return refuseUpgrade(socket, decision.status, decision.reason, decision.headers);
    }
    const admission = decision;
    if ((this.connectionsBySubject.get(admission.subject) ?? 0) >= this.config.maxConnectionsPerSubject) {
      log.warn('upgrade refused', { status: 429, reason: 'too many connections', subject: admission.subject });
      return refuseUpgrade(socket, 429, 'too many connections for this token subject');
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => this.connect(ws, admission));
  }

  private connect(socket: WebSocket, admission: Admission): void {
    const count = this.connectionsBySubject.get(admission.subject) ?? 0;
    if (count >= this.config.maxConnectionsPerSubject) {
      socket.close(CLOSE.tooManyConnections, 'too many connections');
      return;
    }
    this.connectionsBySubject.set(admission.subject, count + 1);
    const peer: Peer = {
      socket,
      ...admission,
      awarenessIds: new Set(),
      alive: true,
      messageRate: new RateLimit(this.config.maxMessagesPerSecond, this.config.maxMessagesPerSecond * RATE_BURST_SECONDS),
      byteRate: new RateLimit(this.config.maxBytesPerSecond, Math.max(this.config.maxBytesPerSecond * RATE_BURST_SECONDS, this.config.maxMessageBytes)),
    };
    let room: Room;
    try {
      room = this.openRoom(admission.room);
    } catch (err) {
      this.unreadable.add(admission.room);
      this.config.logger.error('room unreadable', { room: admission.room, error: (err as Error).message });
      this.release(admission.subject);
      socket.close(CLOSE.roomUnreadable, 'room unreadable');
      return;
    }
    this.unreadable.delete(admission.room);
    const expiry = closeAtExpiry(peer);
    socket.on('pong', () => (peer.alive = true));
    socket.on('message', (data: RawData, isBinary: boolean) => this.message(room, peer, data, isBinary));
    socket.on('close', () => {
      expiry.cancel();
      this.disconnect(room, peer);
    });
    socket.on('error', (err) => this.config.logger.warn('socket error', { room: room.name, subject: peer.subject, error: err.message }));
    room.join(peer);
    this.config.logger.info('connected', { room: room.name, subject: peer.subject, access: peer.access });
  }

  private openRoom(name: string): Room {
    let room = this.rooms.get(name);
    if (!room) {
      const created: Room = new Room(name, this.store, this.config, this.config.logger, (err) => this.failRoom(created, err));
      room = created;
      this.rooms.set(name, room);
    }
    return room;
  }

  private message(room: Room, peer: Peer, data: RawData, isBinary: boolean): void {
    // A socket the relay is closing is not heard any more (ws still reads until the close handshake).
    if (this.closing || this.rooms.get(room.name) !== room || peer.socket.readyState !== WebSocket.OPEN) return;
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
    try {
      room.receive(peer, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    } catch (err) {
      // Only storage may fail a room; anything else is this peer's message and closes only it.
      if (isStorageFailure(err)) this.failRoom(room, err as Error);
      else {
        this.config.logger.warn('message refused', { room: room.name, subject: peer.subject, error: (err as Error).message });
        peer.socket.close(CLOSE.badMessage, 'malformed message');
      }
    }
  }

  /** Storage failed under a room: unload it so its memory never holds what disk does not. */
  private failRoom(room: Room, err: Error): void {
    if (this.rooms.get(room.name) !== room) return;
    this.config.logger.error('storage failed, room unloaded', { room: room.name, error: err.message });
    this.rooms.delete(room.name);
    this.refusedFromClosedRooms += room.refusedWrites;
    for (const peer of room.peers) peer.socket.close(CLOSE.storageFailed, 'storage failed');
    room.destroy();
  }

  private disconnect(room: Room, peer: Peer): void {
    this.release(peer.subject);
    room.leave(peer);
    this.config.logger.info('disconnected', { room: room.name, subject: peer.subject });
    if (room.peers.size > 0 || this.rooms.get(room.name) !== room || this.closing) return;
    this.rooms.delete(room.name);
    this.refusedFromClosedRooms += room.refusedWrites;
    try {
      room.compactIfChanged();
    } catch (err) {
      this.config.logger.error('compaction failed', { room: room.name, error: (err as Error).message });
    }
    room.destroy();
  }

  private release(subject: string): void {
    const count = (this.connectionsBySubject.get(subject) ?? 1) - 1;
    if (count <= 0) this.connectionsBySubject.delete(subject);
    else this.connectionsBySubject.set(subject, count);
  }

  private ping(): void {
    for (const room of this.rooms.values()) {
      for (const peer of room.peers) {
        if (!peer.alive) peer.socket.terminate();
        else {
          peer.alive = false;
          peer.socket.ping();
        }
      }
    }
  }

  private async shutdown(): Promise<void> {
    const log = this.config.logger;
    log.info('stopping');
    clearInterval(this.pinger);
    const stopped = new Promise<void>((resolve) => this.http.close(() => resolve()));
    // Every stored update is already fsynced; compaction makes the next start fast.
    for (const room of this.rooms.values()) {
      try {
        room.compactIfChanged();
      } catch (err) {
        log.error('compaction failed', { room: room.name, error: (err as Error).message });
      }
    }
    const sockets = [...this.rooms.values()].flatMap((room) => [...room.peers].map((peer) => peer.socket));
    await Promise.all(
      sockets.map(
        (socket) =>
          new Promise<void>((resolve) => {
            const force = setTimeout(() => socket.terminate(), 2000);
            socket.once('close', () => {
              clearTimeout(force);
              resolve();
            });
            socket.close(CLOSE.goingAway, 'relay shutting down');
          }),
      ),
    );
    for (const room of this.rooms.values()) room.destroy();
    this.rooms.clear();
    this.http.closeAllConnections();
    await stopped;
    this.store.close();
    log.info('stopped');
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
