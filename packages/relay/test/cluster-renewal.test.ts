/**
 * The renewal of an instance's connection counts in Redis: every counted socket's entry
 * pushed to Redis's now + TTL (so a killed instance's sockets stop counting after the TTL),
 * re-added after Redis lost them, released ones left out — in a few script calls per
 * renewal, not one per socket.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/log.ts';
import { CONNECTION_TTL_MS, RedisCoordination } from '../src/cluster/redis-coordination.ts';
import { type TestRedis, startRedis } from '../../../test/kit/services.ts';

let redis: TestRedis;
let admin: Redis;
const open: RedisCoordination[] = [];

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
}, 60_000);
afterAll(async () => {
  admin.disconnect();
  await redis.stop();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((coordination) => coordination.close()));
  await admin.flushall();
});

async function instance(): Promise<RedisCoordination> {
  const coordination = await RedisCoordination.connect(redis.url, createLogger('silent'));
  open.push(coordination);
  return coordination;
}

async function redisNow(): Promise<number> {
  const [seconds, micros] = await admin.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** Script calls Redis ran (EVALSHA, and EVAL when ioredis had to send a script first). */
async function scriptCalls(): Promise<number> {
  const stats = await admin.info('commandstats');
  const calls = (command: string): number => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  return calls('evalsha') + calls('eval');
}

/** Subject s has s % 7 + 1 sockets: some subjects with one, some with several, 2,500 sockets over 625 subjects. */
function plan(): Array<{ subject: string; sockets: string[] }> {
  const subjects: Array<{ subject: string; sockets: string[] }> = [];
  let total = 0;
  for (let s = 0; total < 2500; s++) {
    const count = Math.min((s % 7) + 1, 2500 - total);
    subjects.push({ subject: `device-${s}`, sockets: Array.from({ length: count }, (_, k) => `${s}-${k}`) });
    total += count;
  }
  return subjects;
}

const key = (subject: string): string => `zeromem:connections:${subject}`;

describe('renewing the connection counts of an instance', () => {
  it('renews every counted socket to now + TTL on Redis’s clock, in a few script calls, and re-adds what Redis lost', async () => {
    const a = await instance();
    const subjects = plan();
    for (const { subject, sockets } of subjects) for (const socket of sockets) expect(await a.acquireConnection(subject, socket, 100)).toBe(true);
    // Redis restarted empty: every count is gone.
    await admin.flushall();
    await admin.config('RESETSTAT');
    const before = await redisNow();
    await a.renewConnections();
    const after = await redisNow();
    // 2,500 sockets renewed by a handful of calls, not 2,500.
    expect(await scriptCalls()).toBeLessThanOrEqual(5);
    const member = (socket: string): string => `${a.instance.toString('hex')}:${socket}`;
    for (const { subject, sockets } of subjects) {
      const entries = await admin.zrange(key(subject), 0, -1, 'WITHSCORES');
      const members = entries.filter((_, i) => i % 2 === 0).sort();
      expect(members).toEqual(sockets.map(member).sort());
      for (let i = 1; i < entries.length; i += 2) {
        expect(Number(entries[i])).toBeGreaterThanOrEqual(before + CONNECTION_TTL_MS);
        expect(Number(entries[i])).toBeLessThanOrEqual(after + CONNECTION_TTL_MS);
      }
      const ttl = await admin.pttl(key(subject));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(CONNECTION_TTL_MS);
    }
  });

  it('leaves released sockets out, and keeps the per-subject limit across instances after a renewal', async () => {
    const a = await instance();
    const b = await instance();
    expect(await a.acquireConnection('phone', 's1', 3)).toBe(true);
    expect(await a.acquireConnection('phone', 's2', 3)).toBe(true);
    expect(await b.acquireConnection('phone', 's3', 3)).toBe(true);
    expect(await b.acquireConnection('phone', 's4', 3)).toBe(false);
    a.releaseConnection('phone', 's1');
    await admin.flushall();
    await Promise.all([a.renewConnections(), b.renewConnections()]);
    expect(await admin.zcard(key('phone'))).toBe(2);
    expect(await b.acquireConnection('phone', 's4', 3)).toBe(true);
    expect(await a.acquireConnection('phone', 's5', 3)).toBe(false);
  });

  it('stops counting the sockets of an instance that no longer renews once their entries expire', async () => {
    const a = await instance();
    const b = await instance();
    expect(await a.acquireConnection('laptop', 's1', 1)).toBe(true);
    expect(await b.acquireConnection('laptop', 's2', 1)).toBe(false);
    // a dies without releasing; its entry's expiry (its score) passes.
    await a.close();
    await admin.zadd(key('laptop'), (await redisNow()) - 1, `${a.instance.toString('hex')}:s1`);
    expect(await b.acquireConnection('laptop', 's2', 1)).toBe(true);
  });
});
