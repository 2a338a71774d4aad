import type { IncomingMessage } from 'node:http';
import { parseRoomPath, type Access } from '@zeromem/protocol';
import { TokenRefused, verifyToken } from '@zeromem/protocol/token';

/** An upgrade that may proceed: who, which room, with what access, until when. */
export interface Admission {
  subject: string;
  room: string;
  access: Access;
  expiresAt: number;
  issuedAt: number;
  tokenId?: string;
}

/** An upgrade to refuse with this HTTP status and reason. */
export interface Refusal {
  status: 400 | 401 | 403;
  reason: string;
  headers?: Record<string, string>;
}

/**
 * The bearer token of an upgrade request: the `Authorization: Bearer` header (Node
 * clients) or the `token` query parameter (browsers cannot set headers on websockets).
 */
export function requestToken(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  }
  const url = request.url ?? '';
  const queryAt = url.indexOf('?');
  if (queryAt < 0) return undefined;
  return new URLSearchParams(url.slice(queryAt + 1)).get('token') ?? undefined;
}

/**
 * Decides an upgrade: 401 without a valid, unexpired token; 400 for a path that is not
 * one valid room; 403 when the token does not grant that room. The token is checked first
 * so an unauthenticated caller learns nothing about rooms.
 */
export async function admit(request: IncomingMessage, secret: string, now: number = Date.now()): Promise<Admission | Refusal> {
  const token = requestToken(request);
  const challenge = { 'WWW-Authenticate': 'Bearer realm="zeromem-relay"' };
  if (token === undefined) return { status: 401, reason: 'token required', headers: challenge };
  let grant;
  try {
    grant = await verifyToken(token, secret, now);
  } catch (err) {
    if (!(err instanceof TokenRefused)) throw err;
    const reason = err.problem === 'expired' ? 'token expired' : 'token invalid';
    return { status: 401, reason, headers: { 'WWW-Authenticate': `Bearer realm="zeromem-relay", error="invalid_token"` } };
  }
  // The raw path, not a WHATWG URL: that would resolve dot segments and re-encode.
  const url = request.url ?? '/';
  const queryAt = url.indexOf('?');
  const parsed = parseRoomPath(queryAt < 0 ? url : url.slice(0, queryAt));
  if ('problem' in parsed) return { status: 400, reason: `bad room path: ${parsed.problem}` };
  const access = grant.rooms.get(parsed.room);
  if (access === undefined) return { status: 403, reason: 'token does not grant this room' };
  const admission: Admission = { subject: grant.subject, room: parsed.room, access, expiresAt: grant.expiresAt, issuedAt: grant.issuedAt };
  if (grant.tokenId !== undefined) admission.tokenId = grant.tokenId;
  return admission;
}
