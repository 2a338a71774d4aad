import { WebSocket } from 'ws';
import type { Access } from './token.ts';

/** One open, authenticated websocket in a room. */
export interface Peer {
  readonly socket: WebSocket;
  readonly room: string;
  readonly subject: string;
  readonly access: Access;
  /** Token expiry (ms since the epoch): the socket is closed with 4401 once it passes. */
  readonly expiresAt: number;
  /** Awareness client ids this socket has published; nobody else may speak for them. */
  readonly awarenessIds: Set<number>;
  /** Whether a pong arrived since the last ping. */
  alive: boolean;
}

/** Sends a binary message if the socket is still open; a failed send closes it. */
export function send(peer: Peer, message: Uint8Array): void {
  if (peer.socket.readyState !== WebSocket.OPEN) return;
  peer.socket.send(message, (err) => {
    if (err) peer.socket.terminate();
  });
}
