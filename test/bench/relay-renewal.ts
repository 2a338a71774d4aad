/**
 * What renewing one instance's connection counts costs Redis: the relay's batched renewal
 * (RedisCoordination.renewConnections: one script call per 1,000 sockets, one TIME, a
 * variadic ZADD and a PEXPIRE per subject) side by side with the per-socket renewal it
 * replaced (one EVALSHA of TIME, ZADD, PEXPIRE for each socket, all sent at once and so
 * pipelined by ioredis). Real Redis 7 on a free loopback port (no persistence), stopped at
 * the end. Per method: Redis CPU (INFO cpu, user + sys) and commands (INFO commandstats) per
 * renewed socket, and the wall time of one renewal of every socket. The order alternates
 * between runs; medians of the runs.
 *
 *   npx tsx --conditions=development test/bench/relay-renewal.ts [--runs 5] [--sockets 20000] [--per-subject 1] [--rounds 10]
 */
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { createLogger } from '../../packages/relay/src/log.ts';
import { CONNECTION_TTL_MS, RedisCoordination } from '../../packages/relay/src/cluster/redis-coordination.ts';
import { startRedis } from './load-services.ts';
import { median } from './stats.ts';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, sockets: { type: 'string', default: '20000' }, 'per-subject': { type: 'string', default: '1' }, rounds: { type: 'string', default: '10' } },
});
const flags = z
  .object({ runs: z.coerce.number().int().min(1), sockets: z.coerce.number().int().min(1).max(200_000), 'per-subject': z.coerce.number().int().min(1), rounds: z.coerce.number().int().min(1) })
  .parse(values);

/** The per-socket renewal script the relay used before (one call per socket). */
const RENEW_ONE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

const redis = await startRedis();
const admin = new Redis(redis.url);
const perSocket = new Redis(redis.url) as Redis & { renewOne(key: string, member: string, ttl: number): Promise<number> };
perSocket.defineCommand('renewOne', { numberOfKeys: 1, lua: RENEW_ONE });
const coordination = await RedisCoordination.connect(redis.url, createLogger('silent'));

try {
  const sockets = Array.from({ length: flags.sockets }, (_, i) => ({ subject: `device-${Math.floor(i / flags['per-subject'])}`, socket: `s${i}` }));
  for (let i = 0; i < sockets.length; i += 1000) {
    await Promise.all(sockets.slice(i, i + 1000).map(({ subject, socket }) => coordination.acquireConnection(subject, socket, flags['per-subject'])));
  }
  const members = sockets.map(({ subject, socket }) => ({ key: `zeromem:connections:${subject}`, member: `${coordination.instance.toString('hex')}:${socket}` }));

  const methods = {
    'per socket (before)': () => Promise.all(members.map(({ key, member }) => perSocket.renewOne(key, member, CONNECTION_TTL_MS))),
    'batched (now)': () => coordination.renewConnections(),
  } as const;
  type Method = keyof typeof methods;
  const results: Record<Method, Array<{ cpuMicrosPerSocket: number; commandsPerSocket: number; wallMsPerRenewal: number }>> = { 'per socket (before)': [], 'batched (now)': [] };

  const redisCpuMicros = async (): Promise<number> => {
    const info = await admin.info('cpu');
    const field = (name: string): number => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
    return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
  };
  const commands = async (): Promise<number> => Object.values(await redis.commandCalls()).reduce((a, b) => a + b, 0);

  for (let run = 0; run < flags.runs; run++) {
    const order = (Object.keys(methods) as Method[])[run % 2 === 0 ? 'slice' : 'reverse']();
    for (const method of order) {
      await methods[method](); // scripts loaded, connections warm
      const [cpu0, calls0, t0] = [await redisCpuMicros(), await commands(), performance.now()];
      for (let round = 0; round < flags.rounds; round++) await methods[method]();
      const [t1, cpu1, calls1] = [performance.now(), await redisCpuMicros(), await commands()];
      const renewed = flags.rounds * sockets.length;
      // The two INFO calls between the readings count as commands too; negligible beside thousands.
      results[method].push({ cpuMicrosPerSocket: (cpu1 - cpu0) / renewed, commandsPerSocket: (calls1 - calls0) / renewed, wallMsPerRenewal: (t1 - t0) / flags.rounds });
    }
  }

  const round2 = (n: number): number => Math.round(n * 100) / 100;
  process.stdout.write(`\n${flags.sockets} sockets, ${flags['per-subject']} per subject, ${flags.rounds} renewals per run, ${flags.runs} runs (medians, min-max)\n\n`);
  process.stdout.write('| renewal | Redis CPU per socket renewed (µs) | Redis commands per socket renewed | wall time of one renewal of every socket (ms) |\n|---|---|---|---|\n');
  for (const method of Object.keys(methods) as Method[]) {
    const cell = (get: (r: (typeof results)[Method][number]) => number): string => {
      const all = results[method].map(get);
      return `${round2(median(all))} (${round2(Math.min(...all))}-${round2(Math.max(...all))})`;
    };
    process.stdout.write(`| ${method} | ${cell((r) => r.cpuMicrosPerSocket)} | ${cell((r) => r.commandsPerSocket)} | ${cell((r) => r.wallMsPerRenewal)} |\n`);
  }
} finally {
  await coordination.close();
  perSocket.disconnect();
  admin.disconnect();
  await redis.stop();
}
