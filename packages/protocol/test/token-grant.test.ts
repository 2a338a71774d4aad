import { describe, expect, it } from 'vitest';
import { readClaims, readGrant } from '../src/index.ts';
import { issueToken, verifyToken } from '../src/token.ts';

const SECRET = 'test-secret-0123456789-abcdefghijklmnopqrstuvwxyz';

describe('reading a token without its key', () => {
  it('readGrant says what verifyToken grants, room by room', async () => {
    const now = Date.UTC(2026, 0, 1);
    const token = await issueToken({ secret: SECRET, subject: 'laptop', rooms: ['u=a;s=x', 'u=a;s=y'], access: 'read', ttlSeconds: 90, now });
    const grant = await verifyToken(token, SECRET, now);
    for (const room of ['u=a;s=x', 'u=a;s=y', 'u=b']) {
      expect(readGrant(token, room)).toEqual({ access: grant.rooms.get(room), listsRooms: true, expiresAt: grant.expiresAt });
    }
  });

  it('readClaims decodes the payload as UTF-8 (a subject of any script), and nothing that is not a JWT with an object payload', async () => {
    const token = await issueToken({ secret: SECRET, subject: '王 José', rooms: ['r'], ttlSeconds: 60 });
    expect(readClaims(token)).toMatchObject({ sub: '王 José', rooms: { r: 'read-write' } });
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const opaque of ['', 'opaque-service-token', 'a.b', `x.${encode({ sub: 's' })}`, `x.${encode([1])}.y`, `x.${encode('text')}.y`, 'x.%%%.y', `x.${encode({ sub: 's' })}.y.z`]) {
      expect(readClaims(opaque), opaque).toBeUndefined();
      expect(readGrant(opaque, 'r'), opaque).toEqual({ access: undefined, listsRooms: false, expiresAt: undefined });
    }
    expect(readClaims(`x.${encode({ sub: 's' })}.y`)).toEqual({ sub: 's' });
  });
});
