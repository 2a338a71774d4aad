import { SignJWT } from 'jose';
import * as encoding from 'lib0/encoding';
import WebSocket from 'ws';
import * as sync from 'y-protocols/sync';
import * as Y from 'yjs';
import { afterEach, describe, expect, it } from 'vitest';
import { CLOSE, verifyToken } from '../src/index.ts';
import { cleanup, client, closeCode, rawConnect, SECRET, synced, testRelay, token, until } from './helpers.ts';

const ROOM = 'u=alice;s=shared';
const PATH = `/${encodeURIComponent(ROOM)}`;

afterEach(cleanup);

/** Expects an HTTP refusal with this status, before any websocket (document) byte. */
async function expectRefused(attempt: ReturnType<typeof rawConnect>, status: number, reason: string): Promise<void> {
  const result = await attempt;
  expect(result.kind).toBe('refused');
  if (result.kind !== 'refused') return;
  expect(result.status).toBe(status);
  expect(JSON.parse(result.body)).toEqual({ error: reason });
  expect(result.documentBytes).toBe(0);
}

describe('authentication at the upgrade', () => {
  it('accepts a valid token in the query or the Authorization header', async () => {
    const relay = await testRelay();
    const rw = await token([ROOM]);
    const viaQuery = await rawConnect(relay.url, `${PATH}?token=${rw}`);
    expect(viaQuery.kind).toBe('open');
    const viaHeader = await rawConnect(relay.url, PATH, { Authorization: `Bearer ${rw}` });
    expect(viaHeader.kind).toBe('open');
  });

  it('refuses a missing token with 401', async () => {
    const relay = await testRelay();
    await expectRefused(rawConnect(relay.url, PATH), 401, 'token required');
    await expectRefused(rawConnect(relay.url, PATH, { Authorization: 'Basic abc' }), 401, 'token required');
  });

  it('refuses a token signed with another secret with 401', async () => {
    const relay = await testRelay();
    const forged = await token([ROOM], { secret: 'another-secret-that-is-long-enough-0123456789' });
    await expectRefused(rawConnect(relay.url, `${PATH}?token=${forged}`), 401, 'token invalid');
  });

  it('refuses a tampered token (rooms changed after signing) with 401', async () => {
    const relay = await testRelay();
    const [header, , signature] = (await token(['u=bob'])).split('.');
    const payload = Buffer.from(
      JSON.stringify({ rooms: { [ROOM]: 'read-write' }, iss: 'zeromem-relay', aud: 'zeromem-relay', sub: 'x', iat: 1, exp: 4e9 }),
    ).toString('base64url');
    await expectRefused(rawConnect(relay.url, `${PATH}?token=${header}.${payload}.${signature}`), 401, 'token invalid');
  });

  it('refuses an unsigned ("alg": "none") token and garbage with 401', async () => {
    const relay = await testRelay();
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ rooms: { [ROOM]: 'read-write' }, iss: 'zeromem-relay', aud: 'zeromem-relay', sub: 'x', iat: 1, exp: 4e9 })).toString('base64url');
    await expectRefused(rawConnect(relay.url, `${PATH}?token=${header}.${payload}.`), 401, 'token invalid');
    await expectRefused(rawConnect(relay.url, `${PATH}?token=not-a-token`), 401, 'token invalid');
  });

  it('refuses a token without an expiry with 401', async () => {
    const relay = await testRelay();
    const noExpiry = await new SignJWT({ rooms: { [ROOM]: 'read-write' } })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('zeromem-relay')
      .setAudience('zeromem-relay')
      .setSubject('x')
      .setIssuedAt()
      .sign(new TextEncoder().encode(SECRET));
    await expectRefused(rawConnect(relay.url, `${PATH}?token=${noExpiry}`), 401, 'token invalid');
  });

  it('refuses a token issued a day in the future, or living ten years, with 401', async () => {
    const relay = await testRelay();
    const now = Math.floor(Date.now() / 1000);
    const sign = (iat: number, exp: number) =>
      new SignJWT({ rooms: { [ROOM]: 'read-write' } })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('zeromem-relay')
        .setAudience('zeromem-relay')
        .setSubject('x')
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(new TextEncoder().encode(SECRET));
    await expectRefused(rawConnect(relay.url, `${PATH}?token=${await sign(now + 86_400, now + 90_000)}`), 401, 'token invalid');
    await expectRefused(rawConnect(relay.url, `${PATH}?token=${await sign(now, now + 10 * 365 * 86_400)}`), 401, 'token invalid');
  });

  it('refuses an expired token with 401', async () => {
    const relay = await testRelay();
    const expired = await token([ROOM], { ttlSeconds: 60, now: Date.now() - 120_000 });
    await expectRefused(rawConnect(relay.url, `${PATH}?token=${expired}`), 401, 'token expired');
  });

  it('refuses a token for another room with 403, also for a room that only differs in encoding', async () => {
    const relay = await testRelay();
    const other = await token(['u=alice;s=other']);
    await expectRefused(rawConnect(relay.url, `${PATH}?token=${other}`), 403, 'token does not grant this room');
    // "u=a%2Fb" (encoded slash) and "u=a/b" are different rooms; a raw slash is not a room at all.
    const slash = await token(['u=a/b']);
    await expectRefused(rawConnect(relay.url, `/${encodeURIComponent('u=a%2Fb')}?token=${slash}`), 403, 'token does not grant this room');
    expect((await rawConnect(relay.url, `/${encodeURIComponent('u=a/b')}?token=${slash}`)).kind).toBe('open');
    await expectRefused(rawConnect(relay.url, `/u=a/b?token=${slash}`), 400, 'bad room path: nested-path');
  });

  it('drops update and sync-step-2 messages of a read-only socket without changing the document', async () => {
    const relay = await testRelay();
    const attempt = await rawConnect(relay.url, `${PATH}?token=${await token([ROOM], { access: 'read' })}`);
    if (attempt.kind !== 'open') throw new Error('expected the socket to open');
    const forbidden = new Y.Doc();
    forbidden.getMap('records').set('r1', 'written by a reader');
    const update = Y.encodeStateAsUpdate(forbidden);
    for (const step of [sync.messageYjsUpdate, sync.messageYjsSyncStep2]) {
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, 0);
      encoding.writeVarUint(encoder, step);
      encoding.writeVarUint8Array(encoder, update);
      attempt.socket.send(encoding.toUint8Array(encoder));
    }
    await until(() => relay.stats().refusedWrites === 2, 'both writes to be refused');
    const reader = client(relay.url, ROOM, await token([ROOM]));
    await synced(reader.provider);
    expect(reader.doc.getMap('records').size).toBe(0);
    expect(attempt.socket.readyState).toBe(WebSocket.OPEN);
  });

  it('refuses malformed room paths with 400 once the token is valid', async () => {
    const relay = await testRelay();
    const rw = await token([ROOM]);
    await expectRefused(rawConnect(relay.url, `/?token=${rw}`), 400, 'bad room path: empty');
    await expectRefused(rawConnect(relay.url, `/%E0%A4%A?token=${rw}`), 400, 'bad room path: bad-encoding');
    await expectRefused(rawConnect(relay.url, `/a%00b?token=${rw}`), 400, 'bad room path: control-character');
    // Without a token the path is not even looked at.
    await expectRefused(rawConnect(relay.url, '/%E0%A4%A'), 401, 'token required');
  });

  it('closes a socket at the expiry of its token with 4401, though it sends nothing and no ping is due', async () => {
    const relay = await testRelay({ pingIntervalMs: 3_600_000 });
    // Two seconds: expiry is in whole seconds, so at least one is left when the socket opens.
    const shortLived = await token([ROOM], { ttlSeconds: 2 });
    const expiresAt = (await verifyToken(shortLived, SECRET)).expiresAt;
    const attempt = await rawConnect(relay.url, `${PATH}?token=${shortLived}`);
    if (attempt.kind !== 'open') throw new Error('expected the socket to open');
    const closed = closeCode(attempt.socket, expiresAt - Date.now() + 10_000);
    expect(await closed).toBe(CLOSE.tokenExpired);
    // Not before it either.
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
  });
});
