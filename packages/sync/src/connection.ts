import { ZeromemError } from '@zeromem/core';
import { CLOSE, roomSegment } from '@zeromem/protocol';
import { WebsocketProvider } from 'y-websocket';
import type * as Y from 'yjs';
import type { ShareOptions } from './options.ts';
import type { PeerState } from './peers.ts';

/**
 * Connects that failed in a row before the first sync, after which `synced` gives up:
 * browsers get no HTTP status for a refused upgrade, so a refused token looks like a relay
 * that cannot be reached.
 */
const GIVE_UP_AFTER = 5;

/** What the connection tells its share. */
export interface ConnectionEvents {
  /** The provider's status: `connected`, `connecting` or `disconnected`. */
  status(status: string): void;
  /** The first exchange with the relay after a (re)connect is done. */
  synced(): void;
  /** The relay refused the token, or it expired or was revoked: the share cannot go on. */
  refused(err: ZeromemError): void;
  /** The first {@link GIVE_UP_AFTER} connects all failed (UNAUTHORIZED); the provider keeps trying. */
  unreachable(err: ZeromemError): void;
  /**
   * The relay closed the connection over a size limit (QUOTA_EXCEEDED). After an oversized
   * message (1009) the provider reconnects; after 4413 (the document would outgrow the relay's
   * limit) it does not (y-websocket stops on 4400-4499) until `connect()`.
   */
  tooLarge(err: ZeromemError): void;
  /** The relay cannot read the room's stored document (STORAGE_FAILED); the provider stops until `connect()`. */
  unreadable(err: ZeromemError): void;
}

/**
 * The standard y-websocket provider for one room: the token in the `token` query
 * parameter (browsers cannot set headers on websockets), this replica's awareness state,
 * and the relay's refusals turned into UNAUTHORIZED.
 */
export function connectRoom(doc: Y.Doc, room: string, opts: ShareOptions, me: PeerState, events: ConnectionEvents): WebsocketProvider {
  const provider = new WebsocketProvider(opts.url, roomSegment(room), doc, {
    params: { token: opts.token },
    ...(opts.WebSocketPolyfill ? { WebSocketPolyfill: opts.WebSocketPolyfill as typeof WebSocket } : {}),
    // Tabs on one device sync through the relay like any replica (the store is shared anyway).
    disableBc: true,
    maxBackoffTime: opts.maxBackoffMs ?? 2500,
  });
  provider.awareness.setLocalStateField('zeromem', me);
  provider.on('status', ({ status }: { status: string }) => events.status(status));
  let everSynced = false;
  let failedInARow = 0;
  provider.on('sync', (isSynced: boolean) => {
    if (!isSynced) return;
    everSynced = true;
    events.synced();
  });
  provider.on('connection-close', (event: { code?: number } | null) => {
    // `null`: this replica closed the socket itself (disconnect()), which is no failure.
    if (event !== null && !everSynced && ++failedInARow === GIVE_UP_AFTER) {
      events.unreachable(
        new ZeromemError(
          'UNAUTHORIZED',
          `No connection to the relay for ${room} after ${GIVE_UP_AFTER} attempts: the relay is unreachable, or it refused the token (forged, expired, or not granting this room; browsers are not told which). The share keeps retrying; check the url and token.`,
        ),
      );
    }
    if (event?.code === CLOSE.tokenExpired) events.refused(new ZeromemError('UNAUTHORIZED', 'The relay closed the connection: the token expired. Share again with a new token.'));
    if (event?.code === CLOSE.tokenRevoked) events.refused(new ZeromemError('UNAUTHORIZED', 'The relay closed the connection: the token was revoked. Share again with a new token.'));
    if (event?.code === CLOSE.messageTooBig) {
      events.tooLarge(new ZeromemError('QUOTA_EXCEEDED', `The relay closed the connection to ${room}: a message was larger than its maxMessageBytes. Raise the relay's limit.`));
    }
    if (event?.code === CLOSE.roomUnreadable) {
      events.unreadable(
        new ZeromemError('STORAGE_FAILED', `The relay cannot read its stored document of ${room} (damaged storage): ask its operator. Local changes are kept; share.connect() tries again.`),
      );
    }
    if (event?.code === CLOSE.documentTooLarge) {
      events.tooLarge(new ZeromemError('QUOTA_EXCEEDED', `The relay closed the connection to ${room}: the shared document would exceed its maxDocumentBytes. Forget records or raise the relay's limit.`));
    }
  });
  provider.on('connection-error', (event: Event) => {
    // Node's `ws` reports the refused upgrade's status in its error event; browsers do not say why.
    const message: unknown = (event as Event & { message?: unknown }).message;
    const status = typeof message === 'string' ? /Unexpected server response: (40[13])/.exec(message)?.[1] : undefined;
    if (status) events.refused(new ZeromemError('UNAUTHORIZED', `The relay refused the token (HTTP ${status}): it is forged, expired, or does not grant ${room}.`));
  });
  return provider;
}
