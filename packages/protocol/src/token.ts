/**
 * `@zeromem/protocol/token`: issuing and verifying relay tokens (HS256 JWTs, with `jose`).
 * The relay and the memory service verify; `zeromem-relay token` issues. A replica only
 * reads a token's claims ({@link readGrant} in `@zeromem/protocol`), which needs no key.
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import { RelayError } from './errors.ts';
import { roomNameProblem } from './room-name.ts';
import { CLOCK_SKEW_SECONDS, MAX_TTL_SECONDS, MIN_SECRET_BYTES, TOKEN_ISSUER, roomsOfClaim, type Access, type Grant } from './token-grant.ts';

/** What {@link issueToken} signs. */
export interface TokenRequest {
  secret: string;
  /** Who the token is for (a device, an agent, a user). */
  subject: string;
  /** Rooms (shared namespace keys) granted, at least one. */
  rooms: readonly string[];
  /** Access to every listed room. Default `read-write`. */
  access?: Access;
  /** Lifetime in seconds, 1 to {@link MAX_TTL_SECONDS}. */
  ttlSeconds: number;
  /** Issue time in milliseconds since the epoch (tests). Default now. */
  now?: number;
}

/** Throws INVALID_CONFIG unless `secret` is at least {@link MIN_SECRET_BYTES} bytes. */
export function checkSecret(secret: string | undefined): string {
  if (secret === undefined || secret === '') {
    throw new RelayError('INVALID_CONFIG', 'A token secret is required: pass --secret or set ZEROMEM_RELAY_SECRET (at least 32 bytes, e.g. `openssl rand -base64 48`).');
  }
  if (new TextEncoder().encode(secret).length < MIN_SECRET_BYTES) {
    throw new RelayError('INVALID_CONFIG', `The token secret is too short: use at least ${MIN_SECRET_BYTES} bytes (e.g. \`openssl rand -base64 48\`).`);
  }
  return secret;
}

/** Signs an HS256 JWT (with a random `jti`, its id for revocation) granting `access` to `rooms` for `ttlSeconds`. Throws INVALID_INPUT on a bad request. */
export async function issueToken(request: TokenRequest): Promise<string> {
  const secret = checkSecret(request.secret);
  if (request.subject.length === 0 || request.subject.length > 256) {
    throw new RelayError('INVALID_INPUT', 'The subject must be 1 to 256 characters.');
  }
  if (request.rooms.length === 0) throw new RelayError('INVALID_INPUT', 'Name at least one room (shared namespace key).');
  for (const room of request.rooms) {
    const problem = roomNameProblem(room);
    if (problem) throw new RelayError('INVALID_INPUT', `Room ${JSON.stringify(room.slice(0, 80))} is not valid: ${problem}.`);
  }
  if (!Number.isInteger(request.ttlSeconds) || request.ttlSeconds < 1 || request.ttlSeconds > MAX_TTL_SECONDS) {
    throw new RelayError('INVALID_INPUT', `The lifetime must be a whole number of seconds from 1 to ${MAX_TTL_SECONDS}.`);
  }
  const access = request.access ?? 'read-write';
  const iat = Math.floor((request.now ?? Date.now()) / 1000);
  return new SignJWT({ rooms: Object.fromEntries(request.rooms.map((room) => [room, access])) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setJti(randomBytes(16).toString('base64url'))
    .setIssuer(TOKEN_ISSUER)
    .setAudience(TOKEN_ISSUER)
    .setSubject(request.subject)
    .setIssuedAt(iat)
    .setExpirationTime(iat + request.ttlSeconds)
    .sign(new TextEncoder().encode(secret));
}

/** Why a token was refused. */
export type TokenProblem = 'expired' | 'invalid';

/** A refused token: `expired`, or `invalid` (forged, malformed, wrong algorithm or claims). */
export class TokenRefused extends RelayError {
  readonly problem: TokenProblem;

  constructor(problem: TokenProblem, message: string) {
    super('INVALID_TOKEN', message);
    this.problem = problem;
  }
}

/**
 * Verifies a token's HS256 signature, issuer, audience and expiry (which it must have), that
 * it was not issued in the future (beyond {@link CLOCK_SKEW_SECONDS}) and does not live longer
 * than {@link MAX_TTL_SECONDS} (from its `iat`, and from now), and reads its grant. The
 * lifetime is checked here too, not only when issuing: whoever holds the secret could sign
 * anything. Throws {@link TokenRefused}.
 */
export async function verifyToken(token: string, secret: string, now: number = Date.now()): Promise<Grant> {
  let payload;
  try {
    ({ payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
      algorithms: ['HS256'],
      issuer: TOKEN_ISSUER,
      audience: TOKEN_ISSUER,
      requiredClaims: ['sub', 'exp', 'iat'],
      currentDate: new Date(now),
    }));
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw new TokenRefused('expired', 'The token has expired: issue a new one.');
    throw new TokenRefused('invalid', 'The token is not valid for this relay (bad signature, format or claims).');
  }
  const nowSeconds = now / 1000;
  const { iat, exp } = payload as { iat: number; exp: number };
  if (iat > nowSeconds + CLOCK_SKEW_SECONDS) throw new TokenRefused('invalid', 'The token was issued in the future: check the clock of the machine that issued it.');
  if (exp - iat > MAX_TTL_SECONDS || exp - nowSeconds > MAX_TTL_SECONDS + CLOCK_SKEW_SECONDS) {
    throw new TokenRefused('invalid', `The token lives longer than ${MAX_TTL_SECONDS} seconds: issue one with a shorter lifetime.`);
  }
  const rooms = roomsOfClaim(payload.rooms, (room) => roomNameProblem(room) === undefined);
  if (rooms.size === 0 || typeof payload.sub !== 'string' || payload.sub === '' || payload.exp === undefined) {
    throw new TokenRefused('invalid', 'The token grants no room.');
  }
  const grant: Grant = { subject: payload.sub, rooms, expiresAt: payload.exp * 1000, issuedAt: iat * 1000 };
  if (typeof payload.jti === 'string' && payload.jti !== '') grant.tokenId = payload.jti;
  return grant;
}
