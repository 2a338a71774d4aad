/**
 * Websocket close codes the relay uses (4000-4999 are for applications). The standard
 * 1009 (message too big) comes from `ws` itself when a message exceeds `maxMessageBytes`,
 * and from the relay when an awareness update exceeds `maxAwarenessBytes`.
 */
export const CLOSE = {
  /** The relay is shutting down (standard "going away"). */
  goingAway: 1001,
  /** A message larger than `maxMessageBytes` (sent by `ws`) or an awareness update larger than `maxAwarenessBytes`. */
  messageTooBig: 1009,
  /** The relay failed on this socket in a way no message of it explains (logged); the other sockets go on. */
  internalError: 1011,
  /** A message that is not y-websocket protocol: malformed, text, unknown type, bad update. */
  badMessage: 4400,
  /** The token expired while the socket was open; reconnect with a new one. */
  tokenExpired: 4401,
  /** The token (its id, or its subject) was revoked while the socket was open. y-websocket does not retry. */
  tokenRevoked: 4403,
  /**
   * The room's stored document cannot be read (damaged storage). In y-websocket's 4400-4499
   * range, so its provider stops reconnecting instead of retrying a room that will fail the
   * same way until the relay's operator repairs it.
   */
  roomUnreadable: 4422,
  /**
   * The socket had more than `maxBufferedBytes` waiting to be sent (it does not read): the
   * relay stopped sending to it. Transient (4500-4599): a client that reads reconnects.
   */
  sendBufferFull: 4507,
  /**
   * The socket sent more than `maxMessagesPerSecond` messages or `maxBytesPerSecond` bytes
   * (averaged; two seconds' worth may come at once), or its room is not loaded and its token
   * subject spent its share of the relay's time (`maxCpuMsPerSecond`). Transient: y-websocket
   * reconnects with backoff, and the sync handshake resends what was not stored.
   */
  rateLimited: 4529,
  /** The relay could not store an update; the room was unloaded, reconnect to resend. */
  storageFailed: 4500,
  /**
   * The storage (PostgreSQL) or the shared state (Redis) cannot be reached right now: the
   * room was unloaded (or could not be loaded) and nothing that was not stored was
   * forwarded. Transient: y-websocket reconnects with backoff and resends.
   */
  storageUnavailable: 4503,
  /**
   * The update would make the document larger than `maxDocumentBytes` (pending updates,
   * waiting for a dependency, count), or more than `maxPendingBytes` wait for dependencies;
   * or the awareness update would take its token subject past `maxAwarenessStatesPerSubject`
   * or `maxAwarenessBytesPerSubject`.
   */
  documentTooLarge: 4413,
  /** The token's subject already holds `maxConnectionsPerSubject` sockets. */
  tooManyConnections: 4429,
} as const;
