import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE, issueToken, verifyToken } from '@zeromem/relay';
import { namespaceKey, type ZeromemError } from '@zeromem/core';
import { peers } from '../src/index.ts';
import { runRelay } from '../../relay/test/spawn-relay.ts';
import { SECRET, cleanup, device, records, tempDir, testRelay, token, until } from './helpers.ts';

const SHARED = { userId: 'alice', scope: 'team' };
const ROOM = namespaceKey(SHARED);

afterEach(cleanup);

async function rejectionOf(work: Promise<unknown>): Promise<ZeromemError> {
  try {
    await work;
  } catch (err) {
    return err as ZeromemError;
  }
  throw new Error('expected a rejection');
}

describe('tokens and read-only replicas', () => {
  it('a read-only replica receives the namespace; its local writes are reported, not sent', async () => {
    const relay = await testRelay();
    const support = await device('support');
    const marketing = await device('marketing');
    const writer = await support.share(SHARED, { url: relay.url, token: await token([ROOM]), agentName: 'support' });
    await writer.synced;
    const fact = await support.memory.remember({ namespace: SHARED, content: 'Customer 42 returned the blender' });
    const reader = await marketing.share(SHARED, { url: relay.url, token: await token([ROOM], 'read', 'marketing') });
    expect(reader.readOnly).toBe(true);
    await reader.synced;
    await until(async () => (await marketing.memory.get(SHARED, fact.id)) !== undefined, 'the reader to receive');

    const local = await marketing.memory.remember({ namespace: SHARED, content: 'a note the reader may not share' });
    await reader.flush();
    expect(marketing.errors.map((e) => e.code)).toEqual(['UNAUTHORIZED']);
    expect(marketing.errors[0]!.message).toContain(local.id);
    await support.memory.remember({ namespace: SHARED, content: 'a later fact' });
    await until(async () => (await records(marketing.memory, SHARED)).length === 3, 'the reader to receive the later fact');
    expect(await support.memory.get(SHARED, local.id)).toBeUndefined();
    expect(relay.stats().refusedWrites).toBe(0); // nothing was sent to be refused
  });

  it('refuses a token for another namespace, an expired one and a forged one with UNAUTHORIZED', async () => {
    const relay = await testRelay();
    const phone = await device('phone');
    const other = await rejectionOf(phone.share(SHARED, { url: relay.url, token: await token(['u=bob']) }));
    expect(other.code).toBe('UNAUTHORIZED');
    const expired = await issueToken({ secret: 'sync-test-secret-0123456789-abcdefghijklmnopqrstuvwxyz', subject: 's', rooms: [ROOM], ttlSeconds: 1, now: Date.now() - 60_000 });
    expect((await rejectionOf(phone.share(SHARED, { url: relay.url, token: expired }))).code).toBe('UNAUTHORIZED');

    const forged = await issueToken({ secret: 'another-secret-0123456789-abcdefghijklmnopqrstuvwxyz', subject: 's', rooms: [ROOM], ttlSeconds: 3600 });
    const share = await phone.share(SHARED, { url: relay.url, token: forged });
    const err = await rejectionOf(share.synced);
    expect(err.code).toBe('UNAUTHORIZED');
    expect(err.message).toContain('401');
    expect(share.status).toBe('failed');
  });

  it('a token that expires while open stops the share with UNAUTHORIZED; the unsent write goes out with a new token', async () => {
    const relay = await testRelay();
    const reader = await device('reader');
    const watcher = await reader.share(SHARED, { url: relay.url, token: await token([ROOM]) });
    const phone = await device('phone');
    const shortLived = await issueToken({ secret: SECRET, subject: 'phone', rooms: [ROOM], ttlSeconds: 2 });
    // The relay closes the socket at the token's (whole-second) expiry, not at the client's next message.
    const { expiresAt } = await verifyToken(shortLived, SECRET);
    const share = await phone.share(SHARED, { url: relay.url, token: shortLived });
    await Promise.all([share.synced, watcher.synced]);
    // Waits for that expiry (and a margin for a loaded machine), well short of y-protocols'
    // awareness renewal 15 s after the connect, which used to be what closed the socket.
    await until(() => share.status === 'failed', 'the share to fail at the expiry of its token', expiresAt - Date.now() + 8_000);
    const late = await phone.memory.remember({ namespace: SHARED, content: 'written after the token expired' });
    await share.flush();
    expect(share.error?.code).toBe('UNAUTHORIZED');
    expect(phone.errors.map((e) => e.code)).toEqual(['UNAUTHORIZED']);
    expect(await reader.memory.get(SHARED, late.id)).toBeUndefined();

    await share.close();
    const renewed = await phone.share(SHARED, { url: relay.url, token: await token([ROOM], 'read-write', 'phone') });
    await renewed.synced;
    await until(async () => (await reader.memory.get(SHARED, late.id)) !== undefined, 'the write to arrive with the new token');
  });

  it('a token revoked while open stops the share with UNAUTHORIZED once; a new token for another subject shares again', { timeout: 90_000 }, async () => {
    const relay = await testRelay();
    const phone = await device('phone');
    const share = await phone.share(SHARED, { url: relay.url, token: await token([ROOM], 'read-write', 'stolen-phone') });
    await share.synced;
    expect(await runRelay(['revoke', '--subject', 'stolen-phone', '--data-dir', relay.dataDir])).toMatchObject({ code: 0 });
    await until(() => share.status === 'failed', 'the share to fail when its token is revoked', 40_000);
    expect(share.error?.code).toBe('UNAUTHORIZED');
    expect(share.error?.message).toMatch(/revoked/);
    expect(phone.errors.map((e) => e.code)).toEqual(['UNAUTHORIZED']);
    await share.close();
    const renewed = await phone.share(SHARED, { url: relay.url, token: await token([ROOM], 'read-write', 'new-phone') });
    await renewed.synced;
  });

  it('refuses readOnly: false with a token that only grants reading (the relay would drop every write)', async () => {
    const relay = await testRelay();
    const phone = await device('phone');
    const err = await rejectionOf(phone.share(SHARED, { url: relay.url, token: await token([ROOM], 'read'), readOnly: false }));
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.details.issues?.[0]?.path).toBe('readOnly');
    // Nothing was left open: the namespace can be shared read-only right after.
    const reader = await phone.share(SHARED, { url: relay.url, token: await token([ROOM], 'read') });
    expect(reader.readOnly).toBe(true);
    await reader.synced;
  });

  it('answers bad options and namespaces with coded errors', async () => {
    const relay = await testRelay();
    const phone = await device('phone');
    const rw = await token([ROOM]);
    expect((await rejectionOf(phone.share(SHARED, { url: 'http://x', token: rw }))).details.issues?.[0]?.path).toBe('url');
    expect((await rejectionOf(phone.share(SHARED, { url: relay.url, token: '' }))).code).toBe('INVALID_INPUT');
    expect((await rejectionOf(phone.share(SHARED, { url: relay.url, token: rw, pollMs: 0 }))).details.issues?.[0]?.path).toBe('pollMs');
    expect((await rejectionOf(phone.share(SHARED, { url: relay.url, token: rw, bogus: 1 } as never))).details.issues?.[0]?.path).toBe('bogus');
    expect((await rejectionOf(phone.share({ agentId: 'x' } as never, { url: relay.url, token: rw }))).code).toBe('NAMESPACE_REQUIRED');
    expect((await rejectionOf(phone.share(SHARED, { url: relay.url, token: rw, encryptionKey: 'too-short' }))).details.issues?.[0]?.path).toBe('encryptionKey');
    const first = await phone.share(SHARED, { url: relay.url, token: rw });
    expect((await rejectionOf(phone.share(SHARED, { url: relay.url, token: rw }))).code).toBe('CONFLICT');
    await first.close();
    await (await phone.share(SHARED, { url: relay.url, token: rw })).synced; // closed: it can be shared again
  });
});

describe('a room the relay cannot read', () => {
  it('reports STORAGE_FAILED once and stops reconnecting; local writes wait in the store', async () => {
    const dataDir = tempDir();
    await (await testRelay({ dataDir })).close();
    // Damage the room's stored document the way a bad disk would: one stored update cut short.
    // better-sqlite3 is the relay's dependency, resolved from there.
    const Database = createRequire(import.meta.resolve('@zeromem/relay'))('better-sqlite3') as new (file: string) => {
      prepare(sql: string): { run(...args: unknown[]): unknown };
      close(): void;
    };
    const db = new Database(join(dataDir, DATABASE_FILE));
    db.prepare('INSERT INTO updates (room, data) VALUES (?, ?)').run(ROOM, new Uint8Array([1, 1, 200, 1, 0, 4]));
    db.close();
    const relay = await testRelay({ dataDir });
    const phone = await device('phone');
    const share = await phone.share(SHARED, { url: relay.url, token: await token([ROOM]) });
    await until(() => phone.errors.length > 0, 'the share to report the unreadable room');
    expect(phone.errors.map((e) => e.code)).toEqual(['STORAGE_FAILED']);
    expect(phone.errors[0]!.message).toContain('cannot read');
    expect(share.status).toBe('offline');
    const kept = await phone.memory.remember({ namespace: SHARED, content: 'written while the room is unreadable' });
    expect(await phone.memory.get(SHARED, kept.id)).toBeDefined();
    // y-websocket does not retry a 44xx close: one failed load in the relay's log, not a loop.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(relay.stats().unreadableRooms).toBe(1);
    expect(phone.errors).toHaveLength(1);
  });
});

describe('awareness', () => {
  it('lists the other replicas online with their agent and device, and drops them when they leave', async () => {
    const relay = await testRelay();
    const rw = await token([ROOM]);
    const aDevice = await device('a');
    const a = await aDevice.share(SHARED, { url: relay.url, token: rw, agentName: 'support-agent', deviceName: 'server-1' });
    const bDevice = await device('b');
    const b = await bDevice.share(SHARED, { url: relay.url, token: await token([ROOM], 'read', 'm'), agentName: 'marketing-agent' });
    await Promise.all([a.synced, b.synced]);
    await until(() => a.peers().length === 1 && b.peers().length === 1, 'both to see one peer');
    expect(a.peers()).toEqual([{ clientId: expect.any(Number), agentName: 'marketing-agent', deviceName: undefined, readOnly: true }]);
    expect(b.peers()).toEqual([{ clientId: expect.any(Number), agentName: 'support-agent', deviceName: 'server-1', readOnly: false }]);
    // The same list by memory and namespace; a namespace this memory does not share has none.
    expect(peers(aDevice.memory, SHARED)).toEqual(a.peers());
    expect(peers(aDevice.memory, { userId: 'alice' })).toEqual([]);
    await b.close();
    await until(() => a.peers().length === 0, 'a to see b leave');
  });
});

describe('a relay that refuses the upgrade without a status (what browsers see)', () => {
  it('rejects synced with UNAUTHORIZED after 5 failed connects, reports it once, and keeps the share retrying', async () => {
    const server = createServer();
    server.on('upgrade', (_request, socket: Socket) => socket.destroy()); // no HTTP status, like a browser's view of a 401
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const phone = await device('phone');
      const share = await phone.share(SHARED, { url: `ws://127.0.0.1:${port}`, token: await token([ROOM]) });
      const err = await rejectionOf(share.synced);
      expect(err.code).toBe('UNAUTHORIZED');
      expect(err.message).toMatch(/unreachable, or it refused the token/);
      expect(phone.errors).toEqual([err]);
      expect(share.status).not.toBe('failed'); // a relay that is only down may come back
      await share.close();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
