/** What a token allows in a room: `read` receives; `read-write` also sends document updates. */
export type Access = 'read' | 'read-write';

/** Shortest secret accepted, in bytes: HS256 wants a key at least as long as its 256-bit hash. */
export const MIN_SECRET_BYTES = 32;

/** Longest token lifetime that can be issued: 366 days. Tokens always expire. */
export const MAX_TTL_SECONDS = 366 * 24 * 3600;

/**
 * How far in the future a token's issue time (`iat`) may lie, in seconds: the clocks of
 * the issuing machine and the relay may differ by this much.
 */
export const CLOCK_SKEW_SECONDS = 60;

/** The `iss` and `aud` of every token: a token of another system is refused. */
export const TOKEN_ISSUER = 'zeromem-relay';

/** The rights a verified token carries. */
export interface Grant {
  /** Who holds the token (its `sub`): connection limits count per subject. */
  subject: string;
  /** Room (shared namespace key) -> access. */
  rooms: ReadonlyMap<string, Access>;
  /** Expiry, in milliseconds since the epoch. */
  expiresAt: number;
  /** Issue time, in milliseconds since the epoch: revoking a subject revokes its tokens issued up to then. */
  issuedAt: number;
  /** The token's id (`jti`), to revoke it alone; tokens issued before revocation existed have none. */
  tokenId?: string;
}

/**
 * The `rooms` claim (room -> access) as a map: entries whose access is not `read` or
 * `read-write`, or whose room name is not valid, are left out (an empty map for anything
 * that is not such an object).
 */
export function roomsOfClaim(claimed: unknown, validRoom: (room: string) => boolean): Map<string, Access> {
  const rooms = new Map<string, Access>();
  if (typeof claimed === 'object' && claimed !== null && !Array.isArray(claimed)) {
    for (const [room, access] of Object.entries(claimed)) {
      if ((access === 'read' || access === 'read-write') && validRoom(room)) rooms.set(room, access);
    }
  }
  return rooms;
}

/** What a relay token says about a room, read without verifying it (the relay verifies). */
export interface TokenGrant {
  /** The access the token names for the room; undefined when it names none or cannot be read. */
  access: Access | undefined;
  /** True when the token lists rooms (so a room it does not list is refused). */
  listsRooms: boolean;
  /** Expiry, epoch ms, when the token has one. */
  expiresAt: number | undefined;
}

/**
 * The claims of a token (a JWT's payload), decoded without verifying anything; `undefined`
 * when it is not a JWT with a JSON object as payload. Only for what a holder may read of
 * its own token: what it grants is decided by `verifyToken` (`@zeromem/protocol/token`) on the relay.
 */
export function readClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[1] === '') return undefined;
  try {
    const base64 = parts[1]!.replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '=')), (char) => char.charCodeAt(0));
    const claims: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return typeof claims === 'object' && claims !== null && !Array.isArray(claims) ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads what a zeromem relay token (a JWT whose `rooms` claim maps room to access) says
 * about `room`, without verifying it, so a read-only replica knows not to send writes the
 * relay would refuse. A token that is not such a JWT gives an empty grant: the relay decides.
 */
export function readGrant(token: string, room: string): TokenGrant {
  const claims = readClaims(token);
  if (!claims) return { access: undefined, listsRooms: false, expiresAt: undefined }; // an opaque token: nothing to read, the relay decides
  return {
    access: roomsOfClaim(claims.rooms, (name) => name === room).get(room),
    listsRooms: typeof claims.rooms === 'object' && claims.rooms !== null,
    expiresAt: typeof claims.exp === 'number' ? claims.exp * 1000 : undefined,
  };
}
