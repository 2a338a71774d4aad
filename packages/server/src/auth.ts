import { createHash, timingSafeEqual } from 'node:crypto';
import { namespaceKey, type Namespace } from '@zeromem/core';
import { TokenRefused, verifyToken } from '@zeromem/protocol/token';
import { ServiceError } from './http-errors.ts';

/** What a request's token allows: everything, or read / read-write on some namespaces. */
export interface Access {
  full: boolean;
  /** Namespace key -> right, for a namespace-limited token. */
  namespaces: ReadonlyMap<string, 'read' | 'read-write'>;
  subject: string;
}

/** How tokens are checked. */
export interface AuthOptions {
  /** The service token: full access to every namespace. */
  token: string;
  /**
   * Secret of namespace-limited tokens in the relay's format (HS256 JWT from
   * `zeromem-relay token --room <namespace key>`): its rooms are the namespaces it may use.
   */
  tokenSecret?: string | undefined;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Reads the bearer token of a request; UNAUTHORIZED unless it is the service token or a valid limited one. */
export async function authenticate(header: string | undefined, options: AuthOptions): Promise<Access> {
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new ServiceError('UNAUTHORIZED', 'Send "Authorization: Bearer <token>" (the token zeromem serve printed, or ZEROMEM_SERVE_TOKEN).');
  const given = match[1]!;
  // Compared as hashes: equal length, constant time.
  if (timingSafeEqual(digest(given), digest(options.token))) return { full: true, namespaces: new Map(), subject: 'service' };
  if (options.tokenSecret && given.split('.').length === 3) {
    try {
      const grant = await verifyToken(given, options.tokenSecret);
      return { full: false, namespaces: grant.rooms, subject: grant.subject };
    } catch (err) {
      if (err instanceof TokenRefused) throw new ServiceError('UNAUTHORIZED', err.message, { problem: err.problem });
      throw err;
    }
  }
  throw new ServiceError('UNAUTHORIZED', 'The token is not valid for this service.');
}

/** FORBIDDEN unless the token may `need` (read or write) this namespace. */
export function requireNamespace(access: Access, namespace: Namespace | undefined, need: 'read' | 'write'): void {
  if (access.full || namespace === undefined || typeof namespace?.userId !== 'string') return; // core answers a missing or bad namespace
  const right = access.namespaces.get(namespaceKey(namespace));
  if (right === 'read-write' || (right === 'read' && need === 'read')) return;
  throw new ServiceError('FORBIDDEN', `This token may not ${need} namespace ${namespaceKey(namespace)}.`, { namespace: namespaceKey(namespace), need });
}

/** True when the token may write this namespace; a read token may not (and none may write one it cannot read). */
export function mayWrite(access: Access, namespace: Namespace): boolean {
  if (access.full || typeof namespace?.userId !== 'string') return true; // core refuses a bad namespace before it reads or writes anything
  return access.namespaces.get(namespaceKey(namespace)) === 'read-write';
}

/**
 * Whether a read records accesses (a recall's or context's access counts and times, the
 * re-warming of cold records): only for a token that may write every namespace read.
 * A read token reads without writing anything, counts included (they feed ranking);
 * asking it to record them (`trackAccess: true`) is FORBIDDEN rather than ignored.
 */
export function recordsAccess(access: Access, namespaces: readonly Namespace[], trackAccess: boolean | undefined): boolean {
  if (namespaces.every((namespace) => mayWrite(access, namespace))) return trackAccess !== false;
  if (trackAccess === true) {
    throw new ServiceError('FORBIDDEN', 'A read token reads without recording accesses (they change ranking): leave trackAccess out or false, or use a read-write token.', { need: 'write' });
  }
  return false;
}

/** FORBIDDEN unless the token has full access (whole users, imports). */
export function requireFull(access: Access, what: string): void {
  if (!access.full) throw new ServiceError('FORBIDDEN', `${what} needs the service token; a namespace-limited token may not.`);
}
