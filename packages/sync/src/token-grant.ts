/** What a relay token says about a room, read without verifying it (the relay verifies). */
export interface TokenGrant {
  /** The access the token names for the room; undefined when it names none or cannot be read. */
  access: 'read' | 'read-write' | undefined;
  /** True when the token lists rooms (so a room it does not list is refused). */
  listsRooms: boolean;
  /** Expiry, epoch ms, when the token has one. */
  expiresAt: number | undefined;
}

/**
 * Reads the claims of a zeromem relay token (a JWT whose `rooms` claim maps room to access)
 * so a read-only replica knows not to send writes the relay would refuse. A token that is
 * not such a JWT gives an empty grant: the relay decides.
 */
export function readGrant(token: string, room: string): TokenGrant {
  const payload = token.split('.')[1];
  if (!payload) return { access: undefined, listsRooms: false, expiresAt: undefined };
  try {
    const json: unknown = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(payload.length / 4) * 4, '=')));
    const claims = (json ?? {}) as { rooms?: Record<string, unknown>; exp?: unknown };
    const access = claims.rooms?.[room];
    return {
      access: access === 'read' || access === 'read-write' ? access : undefined,
      listsRooms: typeof claims.rooms === 'object' && claims.rooms !== null,
      expiresAt: typeof claims.exp === 'number' ? claims.exp * 1000 : undefined,
    };
  } catch {
    return { access: undefined, listsRooms: false, expiresAt: undefined }; // an opaque token: nothing to read, the relay decides
  }
}
