import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { CLOCK_SKEW_SECONDS, MAX_TTL_SECONDS, RelayError } from '../src/index.ts';
import { TokenRefused, checkSecret, issueToken, verifyToken } from '../src/token.ts';

const SECRET = 'test-secret-0123456789-abcdefghijklmnopqrstuvwxyz';

async function refusal(work: Promise<unknown>): Promise<RelayError> {
  try {
    await work;
  } catch (err) {
    if (err instanceof RelayError) return err;
    throw err;
  }
  throw new Error('expected a RelayError');
}

/** A token signed with the right secret whose `iat` and `exp` are chosen freely (seconds). */
function signed(iat: number, exp: number): Promise<string> {
  return new SignJWT({ rooms: { r: 'read-write' } })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('zeromem-relay')
    .setAudience('zeromem-relay')
    .setSubject('s')
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(SECRET));
}

describe('tokens', () => {
  it('round-trips subject, rooms, access and expiry', async () => {
    const now = Date.UTC(2026, 0, 1);
    const token = await issueToken({ secret: SECRET, subject: 'laptop', rooms: ['u=a;s=x', 'u=a;s=y'], access: 'read', ttlSeconds: 90, now });
    const grant = await verifyToken(token, SECRET, now + 1000);
    expect(grant.subject).toBe('laptop');
    expect([...grant.rooms]).toEqual([
      ['u=a;s=x', 'read'],
      ['u=a;s=y', 'read'],
    ]);
    expect(grant.expiresAt).toBe(now + 90_000);
  });

  it('is refused as expired from the second of its expiry on', async () => {
    const now = Date.UTC(2026, 0, 1);
    const token = await issueToken({ secret: SECRET, subject: 's', rooms: ['r'], ttlSeconds: 60, now });
    await expect(verifyToken(token, SECRET, now + 59_000)).resolves.toBeDefined();
    const err = await refusal(verifyToken(token, SECRET, now + 60_000));
    expect(err).toBeInstanceOf(TokenRefused);
    expect((err as TokenRefused).problem).toBe('expired');
    expect(err.code).toBe('INVALID_TOKEN');
  });

  it('is refused as invalid when issued in the future beyond the clock-skew allowance', async () => {
    const now = Date.UTC(2026, 0, 1);
    const at = now / 1000;
    await expect(verifyToken(await signed(at + CLOCK_SKEW_SECONDS, at + 3600), SECRET, now)).resolves.toBeDefined();
    const dayAhead = await refusal(verifyToken(await signed(at + 86_400, at + 90_000), SECRET, now));
    expect((dayAhead as TokenRefused).problem).toBe('invalid');
    expect((await refusal(verifyToken(await signed(at + CLOCK_SKEW_SECONDS + 1, at + 3600), SECRET, now))).code).toBe('INVALID_TOKEN');
  });

  it('is refused as invalid when it lives longer than MAX_TTL_SECONDS', async () => {
    const now = Date.UTC(2026, 0, 1);
    const at = now / 1000;
    await expect(verifyToken(await signed(at, at + MAX_TTL_SECONDS), SECRET, now)).resolves.toBeDefined();
    const tenYears = await refusal(verifyToken(await signed(at, at + 10 * 365 * 86_400), SECRET, now));
    expect((tenYears as TokenRefused).problem).toBe('invalid');
    // An old iat does not make a long expiry acceptable either.
    expect((await refusal(verifyToken(await signed(at - 86_400, at + MAX_TTL_SECONDS), SECRET, now))).code).toBe('INVALID_TOKEN');
  });

  it('is refused as invalid under another secret', async () => {
    const token = await issueToken({ secret: SECRET, subject: 's', rooms: ['r'], ttlSeconds: 60 });
    const err = await refusal(verifyToken(token, `${SECRET}-rotated`));
    expect((err as TokenRefused).problem).toBe('invalid');
  });

  it('refuses bad requests with INVALID_INPUT', async () => {
    const base = { secret: SECRET, subject: 's', rooms: ['r'], ttlSeconds: 60 };
    for (const bad of [
      { ...base, subject: '' },
      { ...base, rooms: [] },
      { ...base, rooms: ['a\nb'] },
      { ...base, rooms: [''] },
      { ...base, ttlSeconds: 0 },
      { ...base, ttlSeconds: 1.5 },
      { ...base, ttlSeconds: MAX_TTL_SECONDS + 1 },
    ]) {
      expect((await refusal(issueToken(bad))).code).toBe('INVALID_INPUT');
    }
  });

  it('requires a secret of at least 32 bytes', () => {
    expect(() => checkSecret(undefined)).toThrow(/secret is required/);
    expect(() => checkSecret('')).toThrow(/secret is required/);
    expect(() => checkSecret('x'.repeat(31))).toThrow(/too short/);
    // Bytes, not characters: 11 three-byte characters are 33 bytes.
    expect(checkSecret('€'.repeat(11))).toBe('€'.repeat(11));
  });
});
