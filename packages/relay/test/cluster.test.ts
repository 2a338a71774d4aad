import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { CLOSE } from '../src/index.ts';
import { cleanup, client, closeCode, directoryContains, rawConnect, synced, tempDir, testRelay, token, until } from './helpers.ts';
import { useRedisAndPostgres } from '../../../test/kit/services.ts';
import { runRelay, serveRelay } from './spawn-relay.ts';

const services = useRedisAndPostgres();
afterEach(cleanup);

/** Two instances on one fresh database and the shared Redis. */
async function pair(options: Parameters<typeof testRelay>[0] = {}) {
  const postgresUrl = await services.postgres.database();
  const shared = { postgresUrl, redisUrl: services.redis.url, ...options };
  const [a, b] = await Promise.all([testRelay(shared), testRelay(shared)]);
  return { a: a!, b: b!, postgresUrl };
}

const canary = (): string => `CANARY-${randomBytes(8).toString('hex')}`;

describe('several instances on PostgreSQL and Redis', () => {
  it('forward an update accepted by one instance to the clients of the room on the other, and serve it after both restart', async () => {
    const room = 'u=alice;s=cluster-forward';
    const { a, b, postgresUrl } = await pair();
    const rw = await token([room]);
    const onA = client(a.url, room, rw);
    const onB = client(b.url, room, rw);
    await Promise.all([synced(onA.provider), synced(onB.provider)]);
    onA.doc.getMap('records').set('r1', 'from a');
    onB.doc.getMap('records').set('r2', 'from b');
    await until(() => onB.doc.getMap('records').get('r1') === 'from a' && onA.doc.getMap('records').get('r2') === 'from b', 'the updates to cross instances');
    // Awareness crosses too, and leaves with its socket.
    onA.provider.awareness.setLocalStateField('device', 'laptop-a');
    const seenOnB = (): boolean => [...onB.provider.awareness.getStates().values()].some((state) => state.device === 'laptop-a');
    await until(seenOnB, 'awareness to cross instances');
    // Read-only is enforced where the socket is: its writes reach no instance.
    const reader = client(b.url, room, await token([room], { access: 'read', subject: 'reader' }));
    await synced(reader.provider);
    reader.doc.getMap('records').set('r3', 'read-only write');
    await until(() => b.stats().refusedWrites === 1, 'the read-only write to be refused');
    onB.doc.getMap('records').set('r4', 'after');
    await until(() => onA.doc.getMap('records').get('r4') === 'after', 'a later write to cross');
    expect(onA.doc.getMap('records').has('r3')).toBe(false);
    reader.provider.destroy();
    expect(a.stats().storage).toBe('postgres');
    const health = (await (await fetch(`http://127.0.0.1:${b.port}/healthz`)).json()) as { status: string; storage: string };
    expect(health).toMatchObject({ status: 'ok', storage: 'postgres' });
    onA.provider.destroy();
    await until(() => !seenOnB(), 'awareness to leave with its socket');
    onB.provider.destroy();
    await Promise.all([a.close(), b.close()]);
    const c = await testRelay({ postgresUrl, redisUrl: services.redis.url });
    const fresh = client(c.url, room, rw);
    await synced(fresh.provider);
    expect(fresh.doc.getMap('records').toJSON()).toEqual({ r1: 'from a', r2: 'from b', r4: 'after' });
  });

  it('compact away a forgotten record: gone from the tables, and after VACUUM from the data directory', async () => {
    const room = 'u=alice;s=cluster-compact';
    const { a, b, postgresUrl } = await pair();
    const rw = await token([room]);
    const writer = client(a.url, room, rw);
    const reader = client(b.url, room, rw);
    await Promise.all([synced(writer.provider), synced(reader.provider)]);
    const secret = canary();
    const records = writer.doc.getMap('records');
    records.set('r1', { content: `the door code is ${secret}` });
    records.set('r2', { content: 'likes green tea' });
    await until(() => reader.doc.getMap('records').has('r2'), 'the writes to cross instances');
    const stored = async (): Promise<boolean> =>
      (await services.postgres.sql<{ n: string }>('SELECT count(*) AS n FROM zeromem_updates WHERE position($1::bytea in data) > 0', [Buffer.from(secret)], postgresUrl))[0]!.n !== '0';
    expect(await stored()).toBe(true);
    await services.postgres.sql('CHECKPOINT');
    expect(directoryContains(`${services.postgres.dataDir}/base`, secret)).toBe(true);

    records.delete('r1');
    await until(() => !reader.doc.getMap('records').has('r1'), 'the forget to cross instances');
    expect(await stored()).toBe(true);
    await b.compact(room);
    expect(await stored()).toBe(false);
    expect(await services.postgres.sql('SELECT seq FROM zeromem_updates', [], postgresUrl)).toHaveLength(1);
    await services.postgres.sql('VACUUM FULL zeromem_updates', [], postgresUrl);
    await services.postgres.sql('CHECKPOINT');
    expect(directoryContains(`${services.postgres.dataDir}/base`, secret)).toBe(false);
    // Both instances still serve the room, and keep forwarding.
    const fresh = client(a.url, room, rw);
    await synced(fresh.provider);
    expect(fresh.doc.getMap('records').toJSON()).toEqual({ r2: { content: 'likes green tea' } });
    records.set('r3', 'after');
    await until(() => reader.doc.getMap('records').get('r3') === 'after', 'a write after compaction to cross');
  });

  it('count connections per subject across instances (HTTP 429), and free them when sockets close', async () => {
    const room = 'u=alice;s=cluster-limit';
    const { a, b } = await pair({ maxConnectionsPerSubject: 2 });
    const rw = await token([room], { subject: 'limited-device' });
    const path = `/${encodeURIComponent(room)}?token=${rw}`;
    const first = await rawConnect(a.url, path);
    const second = await rawConnect(b.url, path);
    expect([first.kind, second.kind]).toEqual(['open', 'open']);
    const third = await rawConnect(a.url, path);
    expect(third).toMatchObject({ kind: 'refused', status: 429 });
    if (second.kind === 'open') second.socket.close();
    await until(() => b.stats().connections === 0, 'the socket to close');
    let fourth = await rawConnect(a.url, path);
    // The release reaches Redis a moment after the close.
    for (let i = 0; fourth.kind === 'refused' && i < 50; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      fourth = await rawConnect(a.url, path);
    }
    expect(fourth.kind).toBe('open');
  });

  it('revoke a token id or a subject on every instance: open sockets close with 4403, upgrades get 401, other tokens go on', async () => {
    const room = 'u=alice;s=cluster-revoke';
    const { a, b, postgresUrl } = await pair();
    const stolen = await token([room], { subject: 'phone' });
    const other = await token([room], { subject: 'phone' });
    const laptop = await token([room], { subject: 'laptop' });
    const path = (t: string): string => `/${encodeURIComponent(room)}?token=${t}`;
    const onA = await rawConnect(a.url, path(stolen));
    const onB = await rawConnect(b.url, path(stolen));
    const keeps = await rawConnect(b.url, path(other));
    if (onA.kind !== 'open' || onB.kind !== 'open' || keeps.kind !== 'open') throw new Error('sockets did not open');
    // The revoke command is a process of its own: under load it may take a while to start.
    const closes = Promise.all([closeCode(onA.socket, 90_000), closeCode(onB.socket, 90_000)]);
    const revoked = await runRelay(['revoke', '--token', stolen, '--postgres-url', postgresUrl, '--redis-url', services.redis.url]);
    expect(revoked).toMatchObject({ code: 0 });
    expect(revoked.stdout).toContain('revoked token id');
    expect(await closes).toEqual([CLOSE.tokenRevoked, CLOSE.tokenRevoked]);
    expect(await rawConnect(a.url, path(stolen))).toMatchObject({ kind: 'refused', status: 401 });
    expect(keeps.socket.readyState).toBe(keeps.socket.OPEN);

    const subjectCloses = closeCode(keeps.socket, 90_000);
    expect(await runRelay(['revoke', '--subject', 'phone', '--postgres-url', postgresUrl])).toMatchObject({ code: 0 });
    expect(await subjectCloses).toBe(CLOSE.tokenRevoked);
    expect(await rawConnect(b.url, path(other))).toMatchObject({ kind: 'refused', status: 401 });
    expect((await rawConnect(a.url, path(laptop))).kind).toBe('open');
    // A token issued to the subject after the revocation (next second: issue times are whole seconds) is valid.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await rawConnect(a.url, path(await token([room], { subject: 'phone' })))).kind).toBe('open');
    expect(a.stats().revokedConnections + b.stats().revokedConnections).toBe(3);
  }, 120_000);

  it('while PostgreSQL is down: writes are neither acknowledged nor forwarded, sockets close with 4503, and everything syncs once it is back', async () => {
    const room = 'u=alice;s=cluster-pg-down';
    const { a, b } = await pair();
    const rw = await token([room]);
    const writer = client(a.url, room, rw);
    const reader = client(b.url, room, rw);
    const neighbour = client(a.url, room, rw);
    await Promise.all([synced(writer.provider), synced(reader.provider), synced(neighbour.provider)]);
    writer.doc.getMap('records').set('before', 1);
    await until(() => reader.doc.getMap('records').get('before') === 1 && neighbour.doc.getMap('records').get('before') === 1, 'a write to be forwarded');
    const codes: number[] = [];
    writer.provider.on('connection-close', (event: { code: number } | null) => event && codes.push(event.code));
    await services.postgres.halt();
    try {
      writer.doc.getMap('records').set('during', 2);
      await until(() => codes.includes(CLOSE.storageUnavailable), 'the writer to be closed with 4503', 15_000);
      expect(reader.doc.getMap('records').get('during')).toBeUndefined();
      expect(neighbour.doc.getMap('records').get('during')).toBeUndefined();
    } finally {
      await services.postgres.resume();
    }
    await until(() => reader.doc.getMap('records').get('during') === 2 && neighbour.doc.getMap('records').get('during') === 2, 'the write to be stored and forwarded once PostgreSQL is back', 30_000);
  });

  it('fail only the room whose rows PostgreSQL refuses (4500): rooms stored with it go on', async () => {
    const bad = 'u=alice;s=cluster-refused';
    const good = 'u=bob;s=cluster-fine';
    const { a, b, postgresUrl } = await pair();
    await services.postgres.sql(
      `CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN IF NEW.room = '${bad}' THEN RAISE EXCEPTION 'refused room'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
      [],
      postgresUrl,
    );
    await services.postgres.sql('CREATE TRIGGER refuse BEFORE INSERT ON zeromem_updates FOR EACH ROW EXECUTE FUNCTION refuse()', [], postgresUrl);
    const writeBad = client(a.url, bad, await token([bad]));
    const readBad = client(b.url, bad, await token([bad]));
    const writeGood = client(a.url, good, await token([good], { subject: 'bob' }));
    const readGood = client(b.url, good, await token([good], { subject: 'bob' }));
    const fillers = ['u=carol;s=filler-1', 'u=carol;s=filler-2'];
    const writeFillers = await Promise.all(fillers.map(async (room) => client(a.url, room, await token([room], { subject: 'carol' }))));
    await Promise.all([writeBad, readBad, writeGood, readGood, ...writeFillers].map(({ provider }) => synced(provider)));
    for (const filler of writeFillers) filler.doc.getMap('records').set('r0', 'first');
    await until(() => a.stats().storedUpdates >= 2, 'the fillers to be stored');
    // Instance a's writes in flight held by row locks, so the next appends wait and are stored together.
    const locker = new pg.Client({ connectionString: postgresUrl });
    await locker.connect();
    const waitingOnLocks = async (): Promise<number> =>
      Number((await services.postgres.sql<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'", [], postgresUrl))[0]!.n);
    const codes: number[] = [];
    const goodCodes: number[] = [];
    writeBad.provider.on('connection-close', (event: { code: number } | null) => event && codes.push(event.code));
    writeGood.provider.on('connection-close', (event: { code: number } | null) => event && goodCodes.push(event.code));
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT head FROM zeromem_rooms WHERE room = ANY($1) FOR UPDATE', [fillers]);
      for (const [i, filler] of writeFillers.entries()) {
        filler.doc.getMap('records').set('r1', 'held');
        while ((await waitingOnLocks()) < i + 1) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      writeBad.doc.getMap('records').set('r1', 'refused');
      writeGood.doc.getMap('records').set('r1', 'stored');
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await locker.query('COMMIT');
      await locker.end();
    }
    await until(() => codes.includes(CLOSE.storageFailed), 'the writer of the refused room to be closed with 4500', 15_000);
    await until(() => readGood.doc.getMap('records').get('r1') === 'stored', 'the other room’s write to be stored and forwarded');
    expect(readBad.doc.getMap('records').get('r1')).toBeUndefined();
    writeGood.doc.getMap('records').set('r2', 'later');
    await until(() => readGood.doc.getMap('records').get('r2') === 'later', 'a later write of the other room to be forwarded');
    // Its socket was never closed: its write was stored in the retry, not resent after a failure.
    expect(goodCodes).toEqual([]);
    for (const { provider } of writeFillers) provider.destroy();
    for (const { provider } of [writeBad, readBad, writeGood, readGood]) provider.destroy();
  });
});

describe('the command line with PostgreSQL and Redis', () => {
  it('serves with ZEROMEM_RELAY_POSTGRES_URL and ZEROMEM_RELAY_REDIS_URL, refuses one without the other (exit 2) and unreachable storage (exit 1)', async () => {
    const postgresUrl = await services.postgres.database();
    const served = await serveRelay(tempDir(), ['--quiet'], 0, { ZEROMEM_RELAY_POSTGRES_URL: postgresUrl, ZEROMEM_RELAY_REDIS_URL: services.redis.url });
    try {
      const health = (await (await fetch(`http://127.0.0.1:${served.port}/healthz`)).json()) as { storage: string };
      expect(health.storage).toBe('postgres');
    } finally {
      served.child.kill('SIGTERM');
      expect(await served.exited).toBe(0);
    }
    const alone = await runRelay(['--port', '0', '--redis-url', services.redis.url]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--postgres-url');
    const unreachable = await runRelay(['--port', '0', '--postgres-url', 'postgres://postgres@127.0.0.1:1/none', '--redis-url', services.redis.url]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('PostgreSQL');
  }, 120_000);
});

describe('revocation on a single SQLite relay', () => {
  it('closes an open socket of a revoked subject with 4403 and refuses its upgrades', async () => {
    const room = 'u=alice;s=single-revoke';
    const relay = await testRelay();
    const held = await token([room], { subject: 'old-phone' });
    const path = `/${encodeURIComponent(room)}?token=${held}`;
    const open = await rawConnect(relay.url, path);
    if (open.kind !== 'open') throw new Error('socket did not open');
    const closed = closeCode(open.socket, 90_000);
    const revoked = await runRelay(['revoke', '--subject', 'old-phone', '--data-dir', relay.dataDir]);
    expect(revoked).toMatchObject({ code: 0 });
    expect(await closed).toBe(CLOSE.tokenRevoked);
    expect(await rawConnect(relay.url, path)).toMatchObject({ kind: 'refused', status: 401 });
  }, 120_000);
});

describe('a killed instance', () => {
  it('leaves nothing stuck: its sockets stop counting for their subject within the connection expiry (30 s)', async () => {
    const room = 'u=alice;s=cluster-expiry';
    const postgresUrl = await services.postgres.database();
    const flags = ['--quiet', '--max-connections-per-subject', '1', '--postgres-url', postgresUrl, '--redis-url', services.redis.url];
    const [doomed, survivor] = await Promise.all([serveRelay(tempDir(), flags), serveRelay(tempDir(), flags)]);
    try {
      const path = `/${encodeURIComponent(room)}?token=${await token([room], { subject: 'single-seat' })}`;
      expect((await rawConnect(doomed.url, path)).kind).toBe('open');
      expect(await rawConnect(survivor.url, path)).toMatchObject({ kind: 'refused', status: 429 });
      doomed.child.kill('SIGKILL');
      await doomed.exited;
      const killedAt = Date.now();
      let attempt = await rawConnect(survivor.url, path);
      while (attempt.kind === 'refused' && Date.now() - killedAt < 45_000) {
        expect(attempt.status).toBe(429);
        await new Promise((resolve) => setTimeout(resolve, 500));
        attempt = await rawConnect(survivor.url, path);
      }
      expect(attempt.kind).toBe('open');
    } finally {
      doomed.child.kill('SIGKILL');
      survivor.child.kill('SIGKILL');
      await Promise.all([doomed.exited, survivor.exited]);
    }
  }, 90_000);
});
