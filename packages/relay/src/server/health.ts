import type { ServerResponse } from 'node:http';
import { answerJson } from './http-answers.ts';

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
  /**
   * Client ids whose awareness the open rooms keep in memory (a current state, or briefly
   * the clock of a removed one), bounded per token subject and per room.
   */
  awarenessClients: number;
}

/** What `GET /healthz` says: `degraded` while a room is unreadable or Redis is away, `stopping` (503) during shutdown. */
export type HealthStatus = 'ok' | 'degraded' | 'stopping';

/** Answers `GET /healthz` with the status and the counters; every other plain HTTP request with 404. */
export function answerHttp(request: { url?: string | undefined; method?: string | undefined }, response: ServerResponse, status: () => HealthStatus, stats: () => RelayStats): void {
  const path = (request.url ?? '/').split('?')[0];
  if (path === '/healthz' && (request.method === 'GET' || request.method === 'HEAD')) {
    const now = status();
    answerJson(response, now === 'stopping' ? 503 : 200, { status: now, ...stats() });
  } else {
    answerJson(response, 404, { error: 'not found: websocket upgrades go to /<room>, health to GET /healthz' });
  }
}
