import { WebSocket } from 'ws';
import { CLOSE, type Access } from '@zeromem/protocol';
import type { RateLimit } from './rate-limit.ts';

/** One open, authenticated websocket in a room. */
export interface Peer {
  readonly socket: WebSocket;
  readonly room: string;
  readonly subject: string;
  readonly access: Access;
  /** Token expiry (ms since the epoch): the socket is closed with 4401 once it passes. */
  readonly expiresAt: number;
  /** Token issue time (ms since the epoch) and id: what a revocation matches. */
  readonly issuedAt: number;
  readonly tokenId?: string;
  /** This socket's id among the relay's connections (counted per subject, across instances). */
  readonly connection: string;
  /** Awareness client ids this socket has published; nobody else may speak for them. */
  readonly awarenessIds: Set<number>;
  /** Whether a pong arrived since the last ping. */
  alive: boolean;
  /** Messages per second this socket may send (`maxMessagesPerSecond`). */
  readonly messageRate: RateLimit;
  /** Bytes per second this socket may send (`maxBytesPerSecond`). */
  readonly byteRate: RateLimit;
}

/**
 * Sends a binary message (a function is called for it only when it is sent) if the socket is
 * open. A socket that already has more than `maxBufferedBytes` waiting to go out (a reader
 * that does not read) is sent nothing more and closed with 4507: `full`. A failed send
 * closes the socket.
 */
export function send(peer: Peer, message: Uint8Array | (() => Uint8Array), maxBufferedBytes: number): 'sent' | 'closed' | 'full' {
  if (peer.socket.readyState !== WebSocket.OPEN) return 'closed';
  if (peer.socket.bufferedAmount > maxBufferedBytes) {
    peer.socket.close(CLOSE.sendBufferFull, 'send buffer full: read faster');
    return 'full';
  }
  peer.socket.send(typeof message === 'function' ? message() : message, (err) => {
    if (err) peer.socket.terminate();
  });
  return 'sent';
}
