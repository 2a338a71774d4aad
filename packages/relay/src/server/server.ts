import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import { CLOSE } from '../close-codes.ts';
import { type Coordination, type InstanceMessage, LocalCoordination } from '../cluster/coordination.ts';
import { answerJson, refuseUpgrade } from './http-answers.ts';
import { type RelayOptions, type ResolvedOptions, resolveOptions } from '../options.ts';
import type { Peer } from '../room/peer.ts';
import { PostgresStore } from '../storage/postgres-store.ts';
import { RATE_BURST_SECONDS, RateLimit } from '../room/rate-limit.ts';
import { RedisCoordination } from '../cluster/redis-coordination.ts';
import { RevocationList } from '../auth/revocations.ts';
import { Room } from '../room/room.ts';
import { type RoomStorage, isStorageFailure } from '../storage/room-storage.ts';
import { SharedCommit } from '../storage/shared-commit.ts';
import { SqliteStore } from '../storage/sqlite-store.ts';
import { type Admission, admit } from '../auth/upgrade-auth.ts';
import { SubjectThrottle } from './subject-throttle.ts';

/** How often the revocation list is re-read, and (several instances) rooms' heads are compared with storage. */
const POLL_INTERVAL_MS = 1000;

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
  /** `sqlite` (one process) or `postgres` (several instances, with Redis). */
  storage: 'sqlite' | 'postgres';
  /** Sockets closed because their token was revoked, since start. */
  revokedConnections: number;
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
  compact(room: string): Promise<void>;
  /** Stops accepting, compacts and stores every open room, closes the sockets (1001) and the database. */
  close(): Promise<void>;
}

/**
 * Starts a relay: an HTTP server answering `GET /healthz` and websocket upgrades to
 * `/<encodeURIComponent(room)>` that carry a token. With `postgresUrl` and `redisUrl` it
 * is one of any number of instances serving the same rooms (docs/SCALING.md). Rejects with
 * a {@link RelayError}: INVALID_CONFIG (options), STORAGE_FAILED (database),
 * STORAGE_UNAVAILABLE (PostgreSQL or Redis unreachable); or if it cannot listen.
 */
export async function startRelay(options: RelayOptions): Promise<Relay> {
  const config = resolveOptions(options);
  let store: RoomStorage;
  let coordination: Coordination;
  if (config.storage.kind === 'sqlite') {
    store = new SqliteStore(config.storage.dataDir);
    coordination = new LocalCoordination();
  } else {
    store = await PostgresStore.connect(config.storage.postgresUrl);
    try {
      coordination = await RedisCoordination.connect(config.storage.redisUrl, config.logger);
    } catch (err) {
      await store.close();
      throw err;
    }
  }
  const relay = new RunningRelay(config, store, coordination);
  try {
    await relay.listen();
  } catch (err) {
    await coordination.close();
    await store.close();
    throw err;
  }
  return relay;
}

class RunningRelay implements Relay {
  private readonly http: Server;
  private readonly wss: WebSocketServer;
  private readonly rooms = new Map<string, Room>();
  /** Rooms being loaded: sockets of one room arriving together share one load. */
  private readonly opening = new Map<string, Promise<Room>>();
  /** Changes other instances sent for a room while it loads (applied once it has). */
  private readonly early = new Map<string, InstanceMessage[]>();
  private readonly unreadable = new Set<string>();
  private readonly revoked = new RevocationList();
  /** Each token subject's share of the relay's time. */
  private readonly throttle: SubjectThrottle;
  private readonly started = Date.now();
  private pinger: NodeJS.Timeout | undefined;
  private poller: NodeJS.Timeout | undefined;
  private refusedFromClosedRooms = 0;
  private revokedConnections = 0;
  private nextConnection = 0;
  /** Every room's appends, stored together when made in the same turn (group commit across rooms). */
  private readonly appends: SharedCommit;
  private closing: Promise<void> | undefined;
  port = 0;
  url = '';

  constructor(
    private readonly config: ResolvedOptions,
    private readonly store: RoomStorage,
    private readonly coordination: Coordination,
  ) {
    this.appends = new SharedCommit(store);
    this.throttle = new SubjectThrottle(config.maxCpuMsPerSecond);
    this.http = createServer((request, response) => {
      const path = (request.url ?? '/').split('?')[0];
      if (path === '/healthz' && (request.method === 'GET' || request.method === 'HEAD')) {
        const stats = this.stats();
        const status = this.closing ? 'stopping' : stats.unreadableRooms > 0 || !this.coordination.ready ? 'degraded' : 'ok';
        answerJson(response, this.closing ? 503 : 200, { status, ...stats });
      } else {
        answerJson(response, 404, { error: 'not found: websocket upgrades go to /<room>, health to GET /healthz' });
      }
    });
    this.wss = new WebSocketServer({ noServer: true, maxPayload: config.maxMessageBytes, perMessageDeflate: false });
    this.http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      // No failure of one connection may reach the process (an unhandled rejection ends it).
      this.upgrade(request, socket, head).catch((err: Error) => {
        config.logger.error('upgrade failed', { error: err.message });
        socket.destroy();
      });
    });
    coordination.onChange((what) => {
      void this.readRevocations();
      if (what === 'reconnected') for (const room of this.rooms.values()) this.catchUp(room);
    });
  }

  async listen(): Promise<void> {
    // Revoked tokens are refused from the first upgrade on.
    this.revoked.update(await this.store.revocations());
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(this.config.port, this.config.host, () => {
        this.http.off('error', reject);
        resolve();
      });
    });
    this.port = (this.http.address() as AddressInfo).port;
    const host = this.config.host.includes(':') ? `[${this.config.host}]` : this.config.host;
    this.url = `ws://${host}:${this.port}`;
    this.pinger = setInterval(() => this.ping(), this.config.pingIntervalMs);
    this.pinger.unref();
    this.poller = setInterval(() => void this.poll(), POLL_INTERVAL_MS);
    this.poller.unref();
    this.config.logger.info('listening', { host: this.config.host, port: this.port, url: this.url, storage: this.store.kind });
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
      storage: this.store.kind,
      revokedConnections: this.revokedConnections,
    };
  }

  async compact(name: string): Promise<void> {
    const loaded = this.rooms.get(name) ?? (await this.opening.get(name)?.catch(() => undefined));
    if (loaded) {
      await new Promise<void>((resolve, reject) => loaded.intake(() => loaded.compact().then(resolve), reject));
      return;
    }
    const peers = await this.coordination.join(name, () => {});
    try {
      const room = await Room.open(name, this.store, this.appends, this.config, this.config.logger, { failed: () => {}, ...(peers ? { peers } : {}) });
      try {
        await room.compact();
      } finally {
        room.destroy();
      }
    } finally {
      if (!this.rooms.has(name) && !this.opening.has(name)) this.coordination.leave(name);
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
    if (this.revoked.revokes(admission)) {
      log.info('upgrade refused', { status: 401, reason: 'token revoked', subject: admission.subject });
      return refuseUpgrade(socket, 401, 'token revoked', { 'WWW-Authenticate': 'Bearer realm="zeromem-relay", error="invalid_token"' });
    }
    if (this.throttle.overdrawn(admission.subject)) {
      log.warn('upgrade refused', { status: 429, reason: 'cpu budget spent', subject: admission.subject });
      return refuseUpgrade(socket, 429, 'this token subject used its share of the relay: retry in a second', { 'Retry-After': '1' });
    }
    const connection = String(++this.nextConnection);
    let counted: boolean;
    try {
      counted = await this.coordination.acquireConnection(admission.subject, connection, this.config.maxConnectionsPerSubject);
    } catch (err) {
      log.error('upgrade refused: connection count unavailable', { status: 503, subject: admission.subject, error: (err as Error).message });
      return refuseUpgrade(socket, 503, 'relay state unavailable, retry', { 'Retry-After': '1' });
    }
    if (!counted) {
      log.warn('upgrade refused', { status: 429, reason: 'too many connections', subject: admission.subject });
      return refuseUpgrade(socket, 429, 'too many connections for this token subject');
    }
    if (this.closing || !socket.writable) {
      this.coordination.releaseConnection(admission.subject, connection);
      return this.closing ? refuseUpgrade(socket, 503, 'relay shutting down') : undefined;
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      this.connect(ws, admission, connection).catch((err: Error) => {
        log.error('connection failed', { room: admission.room, subject: admission.subject, error: err.message });
        ws.close(CLOSE.internalError, 'internal error');
      });
    });
  }

  private async connect(socket: WebSocket, admission: Admission, connection: string): Promise<void> {
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
      opened = await this.openRoom(admission.room);
    } catch (err) {
      const unavailable = (err as { code?: string }).code === 'STORAGE_UNAVAILABLE';
      if (unavailable) {
        this.config.logger.error('room cannot be loaded: storage unavailable', { room: admission.room, error: (err as Error).message });
        socket.close(CLOSE.storageUnavailable, 'storage unavailable, retry');
      } else {
        this.unreadable.add(admission.room);
        this.config.logger.error('room unreadable', { room: admission.room, error: (err as Error).message });
        socket.close(CLOSE.roomUnreadable, 'room unreadable');
      }
      return;
    }
    if (closed || socket.readyState !== WebSocket.OPEN) {
      // Gone while its room loaded: the room may now have no socket.
      if (opened.peers.size === 0) this.unload(opened);
      return;
    }
    this.unreadable.delete(admission.room);
    room = opened;
    room.join(peer);
    this.config.logger.info('connected', { room: room.name, subject: peer.subject, access: peer.access });
    drain();
  }

  /** The loaded room, or loads it (subscribing to other instances' changes first, so none is missed in between). */
  private openRoom(name: string): Promise<Room> {
    const loaded = this.rooms.get(name);
    if (loaded) return Promise.resolve(loaded);
    let opening = this.opening.get(name);
    if (!opening) {
      opening = (async () => {
        this.early.set(name, []);
        try {
          const peers = await this.coordination.join(name, (message) => this.fromOtherInstance(name, message));
          const created: Room = await Room.open(name, this.store, this.appends, this.config, this.config.logger, {
            failed: (err) => this.failRoom(created, err),
            spend: (subject, work) => this.throttle.measure(subject, work),
            ...(peers ? { peers } : {}),
          });
          this.rooms.set(name, created);
          for (const message of this.early.get(name) ?? []) this.fromOtherInstance(name, message);
          return created;
        } catch (err) {
          this.coordination.leave(name);
          throw err;
        } finally {
          this.early.delete(name);
          this.opening.delete(name);
        }
      })();
      this.opening.set(name, opening);
    }
    return opening;
  }

  private fromOtherInstance(name: string, message: InstanceMessage): void {
    const room = this.rooms.get(name);
    if (!room) {
      this.early.get(name)?.push(message);
      return;
    }
    const failed = (err: Error): void => this.config.logger.warn('change from another instance not applied', { room: name, error: err.message });
    if (message.kind === 'updates') room.intake(() => room.fromOtherInstance(message.first, message.updates), failed);
    else if (message.kind === 'compacted') room.compactedElsewhere(message.head, message.bytes);
    else room.awarenessFromOtherInstance(message.update);
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
    room.intake(
      () => {
        if (this.rooms.get(room.name) !== room || peer.socket.readyState !== WebSocket.OPEN) return;
        return this.throttle.measure(peer.subject, () => room.receive(peer, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
      },
      (err) => {
        // Only storage may fail a room; anything else is this peer's message and closes only it.
        if (isStorageFailure(err)) this.failRoom(room, err);
        else {
          this.config.logger.warn('message refused', { room: room.name, subject: peer.subject, error: err.message });
          peer.socket.close(CLOSE.badMessage, 'malformed message');
        }
      },
    );
  }

  /** Storage failed under a room: unload it so its memory never holds what storage does not. */
  private failRoom(room: Room, err: Error): void {
    if (this.rooms.get(room.name) !== room) return;
    const unavailable = (err as { code?: string }).code === 'STORAGE_UNAVAILABLE';
    this.config.logger.error(unavailable ? 'storage unavailable, room unloaded' : 'storage failed, room unloaded', { room: room.name, error: err.message });
    this.rooms.delete(room.name);
    this.coordination.leave(room.name);
    this.refusedFromClosedRooms += room.refusedWrites;
    for (const peer of room.peers) peer.socket.close(unavailable ? CLOSE.storageUnavailable : CLOSE.storageFailed, unavailable ? 'storage unavailable, retry' : 'storage failed');
    room.destroy();
  }

  private disconnect(room: Room, peer: Peer): void {
    this.coordination.releaseConnection(peer.subject, peer.connection);
    room.leave(peer);
    this.config.logger.info('disconnected', { room: room.name, subject: peer.subject });
    if (room.peers.size === 0) this.unload(room);
  }

  /** The room's last socket left: compact what changed, then free it. */
  private unload(room: Room): void {
    if (this.rooms.get(room.name) !== room || this.closing || room.peers.size > 0) return;
    this.rooms.delete(room.name);
    this.coordination.leave(room.name);
    this.refusedFromClosedRooms += room.refusedWrites;
    room.intake(
      async () => {
        await room.compactIfChanged();
        room.destroy();
      },
      (err) => {
        this.config.logger.error('compaction failed', { room: room.name, error: err.message });
        room.destroy();
      },
    );
  }

  /** Reads what other instances stored into `room` (a lost message, Redis back after a restart). */
  private catchUp(room: Room): void {
    room.intake(
      () => room.catchUp(),
      (err) => this.config.logger.warn('reading updates of other instances failed', { room: room.name, error: err.message }),
    );
  }

  /** Every second: the revocation list, and (several instances) whether storage holds updates a room here has not seen. */
  private async poll(): Promise<void> {
    await this.readRevocations();
    if (this.store.kind !== 'postgres' || this.rooms.size === 0) return;
    let heads: Map<string, number>;
    try {
      heads = await this.store.heads([...this.rooms.keys()]);
    } catch (err) {
      this.config.logger.warn('reading room heads failed', { error: (err as Error).message });
      return;
    }
    for (const [name, head] of heads) {
      const room = this.rooms.get(name);
      if (room && head > room.head) this.catchUp(room);
    }
  }

  /** Re-reads the revocation list and closes (4403) every open socket whose token it revokes. */
  private async readRevocations(): Promise<void> {
    try {
      this.revoked.update(await this.store.revocations());
    } catch (err) {
      // The last list read stays in force.
      this.config.logger.warn('reading revocations failed', { error: (err as Error).message });
      return;
    }
    for (const room of this.rooms.values()) {
      for (const peer of room.peers) {
        if (peer.socket.readyState === WebSocket.OPEN && this.revoked.revokes(peer)) {
          this.revokedConnections++;
          this.config.logger.info('token revoked, socket closed', { room: room.name, subject: peer.subject });
          peer.socket.close(CLOSE.tokenRevoked, 'token revoked');
        }
      }
    }
  }

  private ping(): void {
    this.throttle.prune();
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
    clearInterval(this.poller);
    this.throttle.close();
    const stopped = new Promise<void>((resolve) => this.http.close(() => resolve()));
    await Promise.allSettled([...this.opening.values()]);
    // Every stored update is already durable; compaction makes the next start fast.
    for (const room of this.rooms.values()) {
      await room.idle();
      try {
        await room.compactIfChanged();
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
    await this.coordination.close();
    await this.store.close();
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
