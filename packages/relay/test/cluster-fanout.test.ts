import { type Server, type Socket, createServer, connect } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, describe, it } from 'vitest';
import { cleanup, client, synced, testRelay, token, until } from './helpers.ts';
import { useRedisAndPostgres } from '../../../test/kit/services.ts';

const services = useRedisAndPostgres();
afterEach(cleanup);

/** A TCP proxy to `port` that can hold back what the server answers (its requests still go through). */
async function holdingProxy(port: number): Promise<{ port: number; hold(): void; release(): void; close(): Promise<void> }> {
  let holding = false;
  const held: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((downstream) => {
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [downstream, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    downstream.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => (holding ? held.push(() => downstream.write(chunk)) : downstream.write(chunk)));
    downstream.on('close', () => upstream.destroy());
    upstream.on('close', () => downstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    hold: () => void (holding = true),
    release: () => {
      holding = false;
      for (const write of held.splice(0)) write();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('fan-out between instances', () => {
  // Instance B's append takes number n; before PostgreSQL's answer reaches B, instance A
  // stores n+1 and publishes it, and B hears it (waiting behind n). When B's answer comes,
  // n+1 must be applied and forwarded to B's sockets, not counted as held by B.
  it("delivers another instance's update that arrived while this instance's own append was unanswered", async () => {
    const room = 'u=alice;s=fanout-race';
    const postgresUrl = await services.postgres.database();
    const proxy = await holdingProxy(Number(new URL(postgresUrl).port));
    const viaProxy = new URL(postgresUrl);
    viaProxy.port = String(proxy.port);
    const a = await testRelay({ postgresUrl, redisUrl: services.redis.url, compactEvery: 1_000_000 });
    const b = await testRelay({ postgresUrl: viaProxy.toString(), redisUrl: services.redis.url, compactEvery: 1_000_000 });
    const listener = new Redis(services.redis.url);
    // Updates' messages start with kind 1 (awareness ones with 3).
    let onPublished: (() => void) | undefined;
    listener.on('messageBuffer', (_channel: Buffer, message: Buffer) => message[0] === 1 && onPublished?.());
    await listener.subscribe(`zeromem:room:${room}`);
    try {
      const rw = await token([room]);
      const onA = client(a.url, room, rw);
      const onB = client(b.url, room, rw);
      await Promise.all([synced(onA.provider), synced(onB.provider)]);
      onA.doc.getMap('records').set('r0', 'warm-up');
      await until(() => onB.doc.getMap('records').get('r0') === 'warm-up', 'the warm-up write to cross');
      const head = async (): Promise<number> => Number((await services.postgres.sql<{ head: string }>('SELECT head FROM zeromem_rooms WHERE room = $1', [room], postgresUrl))[0]?.head ?? 0);
      const before = await head();

      proxy.hold();
      onB.doc.getMap('records').set('fromB', 'b');
      while ((await head()) < before + 1) await new Promise((resolve) => setTimeout(resolve, 20));
      const publishedByA = new Promise<void>((resolve) => (onPublished = resolve));
      onA.doc.getMap('records').set('fromA', 'a');
      // A stored n+1 and published it: B (subscribed first) hears it before this listener. B's
      // answer is let through at once, within the wait after which B would read the gap back
      // from storage (that read would hide the bug).
      await publishedByA;
      await new Promise((resolve) => setImmediate(resolve));
      proxy.release();

      await until(() => onB.doc.getMap('records').get('fromA') === 'a' && onA.doc.getMap('records').get('fromB') === 'b', 'both updates to cross instances', 8_000);
      onA.provider.destroy();
      onB.provider.destroy();
    } finally {
      listener.disconnect();
      await b.close();
      await proxy.close();
    }
  });
});
