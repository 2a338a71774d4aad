import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { RevocationList } from '../auth/revocations.ts';
import { type Coordination, LocalCoordination } from '../cluster/coordination.ts';
import { RedisCoordination } from '../cluster/redis-coordination.ts';
import { CLOSE } from '@zeromem/protocol';
import { type RelayOptions, type ResolvedOptions, resolveOptions } from '../options.ts';
import { PostgresStore } from '../storage/postgres-store.ts';
import type { RoomStorage } from '../storage/room-storage.ts';
import { SharedCommit } from '../storage/shared-commit.ts';
import { SqliteStore } from '../storage/sqlite-store.ts';
import { Connections } from './connections.ts';
import { type HealthStatus, type RelayStats, answerHttp } from './health.ts';
import { RoomCache } from './room-cache.ts';
import { StoragePoller } from './storage-poller.ts';
import { SubjectThrottle } from './subject-throttle.ts';
import { Upgrades } from './upgrades.ts';

export type { RelayStats } from './health.ts';

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
  private readonly revoked = new RevocationList();
  /** Each token subject's share of the relay's time. */
  private readonly throttle: SubjectThrottle;
  private readonly rooms: RoomCache;
  private readonly connections: Connections;
  private readonly poller: StoragePoller;
  private readonly started = Date.now();
  private pinger: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;
  port = 0;
  url = '';

  constructor(
    private readonly config: ResolvedOptions,
    private readonly store: RoomStorage,
    private readonly coordination: Coordination,
  ) {
    const stopping = (): boolean => this.closing !== undefined;
    this.throttle = new SubjectThrottle(config.maxCpuMsPerSecond);
    this.rooms = new RoomCache(config, store, coordination, new SharedCommit(store), this.throttle);
    this.connections = new Connections(config, this.rooms, coordination, this.throttle, stopping);
    this.poller = new StoragePoller(store, this.revoked, this.rooms, config.logger);
    const wss = new WebSocketServer({ noServer: true, maxPayload: config.maxMessageBytes, perMessageDeflate: false });
    const upgrades = new Upgrades(config, wss, this.revoked, coordination, this.throttle, this.connections, stopping);
    this.http = createServer((request, response) => answerHttp(request, response, () => this.health(), () => this.stats()));
    this.http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => upgrades.handle(request, socket, head));
    coordination.onChange((what) => {
      void this.poller.readRevocations();
      if (what === 'reconnected') for (const room of this.rooms.loaded()) this.rooms.catchUp(room);
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
    this.pinger = setInterval(() => {
      this.throttle.prune();
      this.connections.pingAll();
    }, this.config.pingIntervalMs);
    this.pinger.unref();
    this.poller.start();
    this.config.logger.info('listening', { host: this.config.host, port: this.port, url: this.url, storage: this.store.kind });
  }

  stats(): RelayStats {
    let connections = 0;
    for (const room of this.rooms.loaded()) connections += room.peers.size;
    return {
      rooms: this.rooms.size,
      connections,
      refusedWrites: this.rooms.refusedWrites(),
      unreadableRooms: this.rooms.unreadable.size,
      storedUpdates: this.store.storedUpdates,
      durableWrites: this.store.durableWrites,
      uptimeSeconds: Math.round((Date.now() - this.started) / 1000),
      storage: this.store.kind,
      revokedConnections: this.poller.revokedConnections,
      awarenessClients: this.rooms.awarenessClients(),
    };
  }

  compact(name: string): Promise<void> {
    return this.rooms.compact(name);
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private health(): HealthStatus {
    if (this.closing) return 'stopping';
    return this.rooms.unreadable.size > 0 || !this.coordination.ready ? 'degraded' : 'ok';
  }

  private async shutdown(): Promise<void> {
    const log = this.config.logger;
    log.info('stopping');
    this.rooms.stopping = true;
    clearInterval(this.pinger);
    this.poller.stop();
    this.throttle.close();
    const stopped = new Promise<void>((resolve) => this.http.close(() => resolve()));
    await this.rooms.loadsSettled();
    // Every stored update is already durable; compaction makes the next start fast.
    for (const room of this.rooms.loaded()) {
      await room.idle();
      try {
        await room.compactIfChanged();
      } catch (err) {
        log.error('compaction failed', { room: room.name, error: (err as Error).message });
      }
    }
    const sockets = [...this.rooms.loaded()].flatMap((room) => [...room.peers].map((peer) => peer.socket));
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
    this.rooms.destroyAll();
    this.http.closeAllConnections();
    await stopped;
    await this.coordination.close();
    await this.store.close();
    log.info('stopped');
  }
}
