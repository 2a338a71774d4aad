import { RelayError } from '@zeromem/protocol';
import { LOG_LEVELS, createLogger, type LogLevel, type Logger } from './log.ts';
import { checkSecret } from '@zeromem/protocol/token';

/** Options of {@link startRelay}. Only `secret` and `dataDir` are required. */
export interface RelayOptions {
  /** HMAC secret tokens are signed with, at least 32 bytes. */
  secret: string;
  /** Directory of the relay's SQLite database (created if missing). Not used with `postgresUrl`. */
  dataDir?: string;
  /**
   * PostgreSQL to store rooms in instead of SQLite (`postgres://user:pass@host/db`), shared
   * by every instance; needs `redisUrl` too. See docs/SCALING.md.
   */
  postgresUrl?: string;
  /** Redis through which instances share changes, connection counts and leases (`redis://host:6379`); needs `postgresUrl`. */
  redisUrl?: string;
  /** TCP port; 0 picks a free one (see the returned `port`). Default 0. */
  port?: number;
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Largest websocket message accepted; larger ones close the socket with 1009. Default 1 MiB. */
  maxMessageBytes?: number;
  /** Largest stored document (after compaction); writes beyond it close the socket with 4413. Default 64 MiB. */
  maxDocumentBytes?: number;
  /**
   * Most bytes of updates a room holds while they wait for a dependency that has not
   * arrived (normally a moment during a client's handshake). Past it they are dropped and
   * the sender is closed with 4413; they are never stored nor forwarded. Every later update
   * that does not integrate makes Yjs merge what waits again, so this also bounds what one
   * message can cost. Default 256 KiB.
   */
  maxPendingBytes?: number;
  /**
   * Most bytes waiting to be sent to one socket; a socket past it (it does not read) gets
   * nothing more and is closed with 4507. One message is always sent to a socket below
   * it, however large. Default 8 MiB.
   */
  maxBufferedBytes?: number;
  /**
   * Largest awareness update a socket may send (read-only ones included: they publish
   * awareness so other peers list them as online); larger ones close the socket with 1009
   * and are not forwarded. Default 16 KiB.
   */
  maxAwarenessBytes?: number;
  /**
   * Awareness states one token subject may hold at once on this instance, over all its
   * sockets and rooms (a y-websocket client publishes one per socket; a removed one counts
   * for 30 s more, while its clock is kept against echoes); an update that would take it
   * past this closes its socket with 4413, nothing applied. Default 64.
   */
  maxAwarenessStatesPerSubject?: number;
  /** Bytes of the awareness states one token subject may hold at once on this instance, as above. Default 256 KiB. */
  maxAwarenessBytesPerSubject?: number;
  /**
   * Awareness states one room holds (every peer that joins is sent them all); an update
   * that would add more is not applied nor forwarded, its socket stays open. Default 1024.
   */
  maxAwarenessStatesPerRoom?: number;
  /** Bytes of the awareness states one room holds, as above. Default 1 MiB. */
  maxAwarenessBytesPerRoom?: number;
  /**
   * Messages per second one socket may send on average (two seconds' worth at once); more
   * close it with 4529. Default 200.
   */
  maxMessagesPerSecond?: number;
  /**
   * Bytes per second one socket may send on average (two seconds' worth at once, and at
   * least one message of `maxMessageBytes`); more close it with 4529. Default 8 MiB.
   */
  maxBytesPerSecond?: number;
  /**
   * Most updates of one room one durable write (group commit) stores; the changes of every
   * message of the room read in one turn of the event loop share a write up to this (and
   * other rooms' share it too). 1 writes each update of a room in its own write. Default 1000.
   */
  maxUpdatesPerCommit?: number;
  /** Open connections one token subject may hold; more get HTTP 429. Default 16. */
  maxConnectionsPerSubject?: number;
  /**
   * Milliseconds of the relay's time one token subject may take per second, over all its
   * sockets on this instance (one second's worth at once). Everything done for it counts:
   * its upgrades, loading and decoding a room for its socket, the sync answers it is sent,
   * handling its messages, forwarding what they changed, encoding the compactions it triggers. A
   * subject past it has its sockets paused (nothing more is read from them) until it is
   * back within it, its new sockets are refused with HTTP 429 and no room is loaded for it
   * (close 4529): one client, however heavy its messages or big its rooms, never takes the
   * relay from the others. A room of 100,000 small records takes ~0.3 s to load here, so
   * its first load puts a subject ~3 s in debt. Default 100.
   */
  maxCpuMsPerSecond?: number;
  /** Stored updates of a room after which it is compacted. Default 500. */
  compactEvery?: number;
  /** Interval of websocket pings; a socket that missed one pong is dropped. Default 30 s. */
  pingIntervalMs?: number;
  /** Log level of the default JSON-lines stderr logger. Default `info`. */
  logLevel?: LogLevel;
  /** A logger to use instead of the default one. */
  logger?: Logger;
}

/** {@link RelayOptions} with every default filled in. */
export interface ResolvedOptions {
  secret: string;
  /** Where rooms are stored: one SQLite directory, or PostgreSQL and Redis shared by instances. */
  storage: { kind: 'sqlite'; dataDir: string } | { kind: 'postgres'; postgresUrl: string; redisUrl: string };
  port: number;
  host: string;
  maxMessageBytes: number;
  maxDocumentBytes: number;
  maxPendingBytes: number;
  maxBufferedBytes: number;
  maxAwarenessBytes: number;
  maxAwarenessStatesPerSubject: number;
  maxAwarenessBytesPerSubject: number;
  maxAwarenessStatesPerRoom: number;
  maxAwarenessBytesPerRoom: number;
  maxMessagesPerSecond: number;
  maxBytesPerSecond: number;
  maxUpdatesPerCommit: number;
  maxConnectionsPerSubject: number;
  maxCpuMsPerSecond: number;
  compactEvery: number;
  pingIntervalMs: number;
  logger: Logger;
}

/** Defaults of the limits, shown by `--help`. */
export const DEFAULTS = {
  port: 0,
  host: '127.0.0.1',
  maxMessageBytes: 1024 * 1024,
  maxDocumentBytes: 64 * 1024 * 1024,
  maxPendingBytes: 256 * 1024,
  maxBufferedBytes: 8 * 1024 * 1024,
  maxAwarenessBytes: 16 * 1024,
  maxAwarenessStatesPerSubject: 64,
  maxAwarenessBytesPerSubject: 256 * 1024,
  maxAwarenessStatesPerRoom: 1024,
  maxAwarenessBytesPerRoom: 1024 * 1024,
  maxMessagesPerSecond: 200,
  maxBytesPerSecond: 8 * 1024 * 1024,
  maxUpdatesPerCommit: 1000,
  maxConnectionsPerSubject: 16,
  maxCpuMsPerSecond: 100,
  compactEvery: 500,
  pingIntervalMs: 30_000,
} as const;

/** A numeric limit: its option, its command-line flag (and `ZEROMEM_RELAY_<FLAG>` variable), range and help line. */
export interface LimitSpec {
  key: LimitKey;
  flag: string;
  min: number;
  max: number;
  help: string;
}

/** The options that are whole numbers with a range (all but port, which the command line defaults differently). */
export type LimitKey = Exclude<keyof typeof DEFAULTS, 'port' | 'host'>;

/** Every numeric limit, in the order `--help` lists them. */
export const LIMITS: readonly LimitSpec[] = [
  { key: 'maxMessageBytes', flag: 'max-message-bytes', min: 1024, max: 256 * 1024 * 1024, help: 'largest message, else close 1009' },
  { key: 'maxDocumentBytes', flag: 'max-document-bytes', min: 1024, max: 2 ** 40, help: 'largest document (pending updates count), else close 4413' },
  { key: 'maxPendingBytes', flag: 'max-pending-bytes', min: 1024, max: 2 ** 40, help: 'updates waiting for a dependency, else dropped and close 4413' },
  { key: 'maxAwarenessBytes', flag: 'max-awareness-bytes', min: 64, max: 256 * 1024 * 1024, help: 'largest awareness update, else close 1009' },
  { key: 'maxAwarenessStatesPerSubject', flag: 'max-awareness-states-per-subject', min: 1, max: 1_000_000, help: 'awareness states a token subject holds, else close 4413' },
  { key: 'maxAwarenessBytesPerSubject', flag: 'max-awareness-bytes-per-subject', min: 64, max: 2 ** 40, help: 'bytes of awareness a token subject holds, else close 4413' },
  { key: 'maxAwarenessStatesPerRoom', flag: 'max-awareness-states-per-room', min: 1, max: 1_000_000, help: 'awareness states a room holds, else not applied' },
  { key: 'maxAwarenessBytesPerRoom', flag: 'max-awareness-bytes-per-room', min: 64, max: 2 ** 40, help: 'bytes of awareness a room holds, else not applied' },
  { key: 'maxMessagesPerSecond', flag: 'max-messages-per-second', min: 1, max: 1_000_000_000, help: 'messages per socket per second (2 s at once), else close 4529' },
  { key: 'maxBytesPerSecond', flag: 'max-bytes-per-second', min: 1024, max: 2 ** 40, help: 'bytes per socket per second (2 s at once), else close 4529' },
  { key: 'maxBufferedBytes', flag: 'max-buffered-bytes', min: 64 * 1024, max: 2 ** 40, help: 'bytes waiting to be sent to a socket, else close 4507' },
  { key: 'maxConnectionsPerSubject', flag: 'max-connections-per-subject', min: 1, max: 1_000_000, help: 'sockets per token subject, else HTTP 429' },
  { key: 'maxCpuMsPerSecond', flag: 'max-cpu-ms-per-second', min: 1, max: 1000, help: "relay time (ms) per token subject per second (1 s at once), else its sockets wait, 429, no room loaded (4529)" },
  { key: 'maxUpdatesPerCommit', flag: 'max-updates-per-commit', min: 1, max: 1_000_000, help: 'updates per durable write (group commit; 1: fsync each)' },
  { key: 'compactEvery', flag: 'compact-every', min: 1, max: 1_000_000, help: 'stored updates before a room is compacted' },
  { key: 'pingIntervalMs', flag: 'ping-interval-ms', min: 100, max: 3_600_000, help: 'websocket ping interval; a missed pong drops the socket' },
];

/** The environment variable of a command-line flag. */
export function flagVariable(flag: string): string {
  return `ZEROMEM_RELAY_${flag.toUpperCase().replaceAll('-', '_')}`;
}

function integer(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RelayError('INVALID_CONFIG', `${name} must be a whole number from ${min} to ${max}, got ${String(value)}.`);
  }
  return value;
}

/** Checks the options and fills in defaults; throws INVALID_CONFIG with what to fix. */
export function resolveOptions(options: RelayOptions): ResolvedOptions {
  const secret = checkSecret(options.secret);
  const postgresUrl = options.postgresUrl || undefined;
  const redisUrl = options.redisUrl || undefined;
  let storage: ResolvedOptions['storage'];
  if (postgresUrl !== undefined || redisUrl !== undefined) {
    if (postgresUrl === undefined || redisUrl === undefined) {
      throw new RelayError('INVALID_CONFIG', 'Several instances need both PostgreSQL and Redis: pass --postgres-url and --redis-url (or ZEROMEM_RELAY_POSTGRES_URL and ZEROMEM_RELAY_REDIS_URL), or neither for one process on SQLite.');
    }
    if (!/^postgres(ql)?:\/\//.test(postgresUrl)) throw new RelayError('INVALID_CONFIG', 'The PostgreSQL URL must start with postgres:// or postgresql://.');
    if (!/^rediss?:\/\//.test(redisUrl)) throw new RelayError('INVALID_CONFIG', 'The Redis URL must start with redis:// or rediss://.');
    storage = { kind: 'postgres', postgresUrl, redisUrl };
  } else {
    if (typeof options.dataDir !== 'string' || options.dataDir === '') {
      throw new RelayError('INVALID_CONFIG', 'A data directory is required: pass --data-dir or set ZEROMEM_RELAY_DATA_DIR.');
    }
    storage = { kind: 'sqlite', dataDir: options.dataDir };
  }
  if (options.logLevel !== undefined && !LOG_LEVELS.includes(options.logLevel)) {
    throw new RelayError('INVALID_CONFIG', `The log level must be one of ${LOG_LEVELS.join(', ')}.`);
  }
  const limits = Object.fromEntries(LIMITS.map(({ key, min, max }) => [key, integer(key, options[key], DEFAULTS[key], min, max)])) as Record<LimitKey, number>;
  return {
    secret,
    storage,
    port: integer('port', options.port, DEFAULTS.port, 0, 65535),
    host: options.host ?? DEFAULTS.host,
    ...limits,
    logger: options.logger ?? createLogger(options.logLevel ?? 'info'),
  };
}
