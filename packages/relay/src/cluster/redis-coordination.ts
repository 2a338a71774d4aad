import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import type { Coordination, InstanceMessage, RoomPeers } from './coordination.ts';
import { RelayError } from '@zeromem/protocol';
import type { Logger } from '../log.ts';

/** Every key and channel starts with this. */
const PREFIX = 'zeromem:';
/** Channel of revocation notices (no payload: instances re-read the list from storage). */
const REVOCATIONS_CHANNEL = `${PREFIX}revocations`;
/** How long a connection counts without its instance renewing it: a killed instance's sockets stop counting after this. */
export const CONNECTION_TTL_MS = 30_000;
/** How long a compaction lease lasts if its holder dies before releasing it. */
const LEASE_TTL_MS = 30_000;

const KIND = { updates: 1, compacted: 2, awareness: 3 } as const;

/**
 * Counts `ARGV[1]` (a connection) in the sorted set `KEYS[1]` (a subject's connections,
 * scored by expiry) unless `ARGV[2]` unexpired ones are there already; renews it for
 * `ARGV[3]` ms. Redis's own clock, so instances' clocks do not matter.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

/**
 * Renews counted connections of several subjects for `ARGV[1]` ms, re-adding any a Redis
 * restart lost: `KEYS` are the subjects' sorted sets, and `ARGV` holds, after the TTL, for
 * each key in turn the number of its members and the members. One TIME, then one
 * variadic ZADD and one PEXPIRE per key.
 */
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
local at = 2
for k = 1, #KEYS do
  local count = tonumber(ARGV[at])
  local scored = {}
  for i = 1, count do
    scored[2 * i - 1] = now + ttl
    scored[2 * i] = ARGV[at + i]
  end
  at = at + count + 1
  redis.call('ZADD', KEYS[k], unpack(scored))
  redis.call('PEXPIRE', KEYS[k], ttl)
end
return #KEYS`;

/** Connections renewed by one script call at most (Lua's unpack takes a few thousand values; a call blocks Redis while it runs). */
const RENEW_CHUNK = 1000;

/** Deletes a lease only if this holder still has it. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

type Scripted = Redis & {
  acquireConnection(key: string, member: string, max: number, ttl: number): Promise<number>;
  renewConnections(keyCount: number, ...keysThenArgs: Array<string | number>): Promise<number>;
  releaseLease(key: string, holder: string): Promise<number>;
};

/**
 * Coordination of several relay instances through Redis (the `ioredis` client). Redis holds
 * nothing durable: per room a pub/sub channel carrying the updates an instance stored (with
 * their numbers, so a lost message shows as a gap, filled from PostgreSQL), compaction
 * notices and awareness; per token subject a sorted set of open connections, each expiring
 * unless its instance renews it; per room a compaction lease with an expiry. After a Redis
 * restart the instances re-add their connections and re-read what they may have missed.
 */
export class RedisCoordination implements Coordination {
  readonly instance = randomBytes(8);
  private readonly listeners = new Map<string, (message: InstanceMessage) => void>();
  /** This instance's counted connections: their members by subject. */
  private readonly connections = new Map<string, Set<string>>();
  private readonly changeListeners: Array<(what: 'revocations' | 'reconnected') => void> = [];
  private readonly renewer: NodeJS.Timeout;
  private lostSince = false;

  private constructor(
    private readonly command: Scripted,
    private readonly subscriber: Redis,
    private readonly log: Logger,
  ) {
    this.renewer = setInterval(() => void this.renewConnections(), CONNECTION_TTL_MS / 3);
    this.renewer.unref();
    subscriber.on('messageBuffer', (channel: Buffer, message: Buffer) => this.hear(channel.toString(), message));
    for (const client of [command, subscriber]) {
      client.on('error', () => {}); // reconnects on its own; 'close' and 'ready' are logged
      client.on('close', () => {
        if (!this.lostSince) log.warn('redis connection lost');
        this.lostSince = true;
      });
    }
    subscriber.on('ready', () => {
      if (!this.lostSince) return;
      this.lostSince = false;
      log.info('redis connection back');
      void this.renewConnections();
      for (const listener of this.changeListeners) listener('reconnected');
    });
  }

  /** Connects both clients; rejects with STORAGE_UNAVAILABLE if Redis cannot be reached. */
  static async connect(url: string, log: Logger): Promise<RedisCoordination> {
    const options = { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 5000, retryStrategy: (times: number) => Math.min(times * 100, 1000) };
    const command = new Redis(url, options) as Scripted;
    const subscriber = new Redis(url, { ...options, autoResubscribe: true });
    command.defineCommand('acquireConnection', { numberOfKeys: 1, lua: ACQUIRE });
    // The number of keys comes first in each call.
    command.defineCommand('renewConnections', { lua: RENEW });
    command.defineCommand('releaseLease', { numberOfKeys: 1, lua: RELEASE });
    try {
      await Promise.all([command.connect(), subscriber.connect()]);
      await subscriber.subscribe(REVOCATIONS_CHANNEL);
    } catch (err) {
      command.disconnect();
      subscriber.disconnect();
      throw new RelayError('STORAGE_UNAVAILABLE', `Cannot connect to Redis at ${redactedUrl(url)}: ${(err as Error).message}`, { cause: err });
    }
    return new RedisCoordination(command, subscriber, log);
  }

  get ready(): boolean {
    return this.command.status === 'ready' && this.subscriber.status === 'ready';
  }

  async acquireConnection(subject: string, connection: string, max: number): Promise<boolean> {
    const member = `${this.instance.toString('hex')}:${connection}`;
    let counted: number;
    try {
      counted = await this.command.acquireConnection(subjectKey(subject), member, max, CONNECTION_TTL_MS);
    } catch (err) {
      throw new RelayError('STORAGE_UNAVAILABLE', `Cannot count connections in Redis: ${(err as Error).message}`, { cause: err });
    }
    if (counted === 1) {
      const members = this.connections.get(subject) ?? new Set();
      members.add(member);
      this.connections.set(subject, members);
    }
    return counted === 1;
  }

  releaseConnection(subject: string, connection: string): void {
    const member = `${this.instance.toString('hex')}:${connection}`;
    const members = this.connections.get(subject);
    members?.delete(member);
    if (members?.size === 0) this.connections.delete(subject);
    // If this fails (Redis away), the entry expires by itself.
    this.command.zrem(subjectKey(subject), member).catch(() => {});
  }

  async join(room: string, listener: (message: InstanceMessage) => void): Promise<RoomPeers> {
    this.listeners.set(room, listener);
    try {
      await this.subscriber.subscribe(roomChannel(room));
    } catch (err) {
      this.listeners.delete(room);
      throw new RelayError('STORAGE_UNAVAILABLE', `Cannot subscribe to room ${JSON.stringify(room)} in Redis: ${(err as Error).message}`, { cause: err });
    }
    return {
      stored: (first, updates) =>
        this.publish(room, KIND.updates, (encoder) => {
          encoding.writeVarUint(encoder, first);
          encoding.writeVarUint(encoder, updates.length);
          for (const update of updates) encoding.writeVarUint8Array(encoder, update);
        }),
      compacted: (head, bytes) =>
        this.publish(room, KIND.compacted, (encoder) => {
          encoding.writeVarUint(encoder, head);
          encoding.writeVarUint(encoder, bytes);
        }),
      awareness: (update) => this.publish(room, KIND.awareness, (encoder) => encoding.writeVarUint8Array(encoder, update)),
      lease: () => this.lease(room),
    };
  }

  leave(room: string): void {
    this.listeners.delete(room);
    this.subscriber.unsubscribe(roomChannel(room)).catch(() => {});
  }

  revocationsChanged(): void {
    this.command.publish(REVOCATIONS_CHANNEL, '').catch(() => {});
  }

  onChange(listener: (what: 'revocations' | 'reconnected') => void): void {
    this.changeListeners.push(listener);
  }

  async close(): Promise<void> {
    clearInterval(this.renewer);
    await Promise.all([this.subscriber.quit().catch(() => this.subscriber.disconnect()), this.command.quit().catch(() => this.command.disconnect())]);
  }

  /**
   * A compaction lease on `room` for this instance: undefined if another instance holds it.
   * If Redis cannot be asked, compaction goes ahead: PostgreSQL's row lock keeps it correct,
   * the lease only spares duplicate work.
   */
  private async lease(room: string): Promise<{ release(): void } | undefined> {
    const key = `${PREFIX}lease:${room}`;
    const holder = randomBytes(8).toString('hex');
    try {
      if ((await this.command.set(key, holder, 'PX', LEASE_TTL_MS, 'NX')) !== 'OK') return undefined;
    } catch {
      return { release() {} };
    }
    return { release: () => void this.command.releaseLease(key, holder).catch(() => {}) };
  }

  /** Best effort: a message lost here shows as a gap at the others (or is found by their poll of the heads). */
  private publish(room: string, kind: number, write: (encoder: encoding.Encoder) => void): void {
    const encoder = encoding.createEncoder();
    encoding.writeUint8(encoder, kind);
    encoding.writeUint8Array(encoder, this.instance);
    write(encoder);
    this.command.publish(roomChannel(room), Buffer.from(encoding.toUint8Array(encoder))).catch((err: Error) => this.log.debug('publish failed', { room, error: err.message }));
  }

  private hear(channel: string, message: Buffer): void {
    if (channel === REVOCATIONS_CHANNEL) {
      for (const listener of this.changeListeners) listener('revocations');
      return;
    }
    const listener = this.listeners.get(channel.slice(`${PREFIX}room:`.length));
    if (!listener) return;
    try {
      const decoder = decoding.createDecoder(new Uint8Array(message.buffer, message.byteOffset, message.byteLength));
      const kind = decoding.readUint8(decoder);
      const from = decoding.readUint8Array(decoder, this.instance.byteLength);
      if (Buffer.from(from).equals(this.instance)) return;
      if (kind === KIND.updates) {
        const first = decoding.readVarUint(decoder);
        const count = decoding.readVarUint(decoder);
        const updates = Array.from({ length: count }, () => decoding.readVarUint8Array(decoder));
        listener({ kind: 'updates', first, updates });
      } else if (kind === KIND.compacted) {
        listener({ kind: 'compacted', head: decoding.readVarUint(decoder), bytes: decoding.readVarUint(decoder) });
      } else if (kind === KIND.awareness) {
        listener({ kind: 'awareness', update: decoding.readVarUint8Array(decoder) });
      }
    } catch (err) {
      this.log.warn('unreadable message from another instance', { channel, error: (err as Error).message });
    }
  }

  /**
   * Renews every connection this instance counts, on Redis's clock, in one script call per
   * {@link RENEW_CHUNK} connections (runs every third of the TTL, and when Redis comes back).
   * Resolves when every call answered; a failed one is left to the next renewal.
   */
  async renewConnections(): Promise<void> {
    const calls: Array<Promise<unknown>> = [];
    let keys: string[] = [];
    let args: Array<string | number> = [];
    let members = 0;
    const send = (): void => {
      calls.push(this.command.renewConnections(keys.length, ...keys, CONNECTION_TTL_MS, ...args).catch((err: Error) => this.log.debug('renewing connections failed', { error: err.message })));
      keys = [];
      args = [];
      members = 0;
    };
    for (const [subject, counted] of this.connections) {
      let pending = [...counted];
      while (pending.length > 0) {
        const taken = pending.slice(0, RENEW_CHUNK - members);
        pending = pending.slice(taken.length);
        keys.push(subjectKey(subject));
        args.push(taken.length, ...taken);
        members += taken.length;
        if (members === RENEW_CHUNK) send();
      }
    }
    if (members > 0) send();
    await Promise.all(calls);
  }
}

function roomChannel(room: string): string {
  return `${PREFIX}room:${room}`;
}

function subjectKey(subject: string): string {
  return `${PREFIX}connections:${subject}`;
}

/** A URL without its password, for messages. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/** Publishes a revocation notice once, for `zeromem-relay revoke` (instances also re-read the list every second). */
export async function announceRevocation(url: string): Promise<void> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5000, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.publish(REVOCATIONS_CHANNEL, '');
  } finally {
    client.disconnect();
  }
}
