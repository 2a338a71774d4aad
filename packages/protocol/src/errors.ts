/** Stable codes of {@link RelayError}. */
export const RELAY_ERROR_CODES = ['INVALID_CONFIG', 'INVALID_TOKEN', 'INVALID_INPUT', 'STORAGE_FAILED', 'STORAGE_UNAVAILABLE'] as const;

/** One of {@link RELAY_ERROR_CODES}. */
export type RelayErrorCode = (typeof RELAY_ERROR_CODES)[number];

/**
 * The relay's error class: a stable `code` to catch by, and a message that says what to do.
 * STORAGE_UNAVAILABLE means PostgreSQL or Redis cannot be reached right now (nothing was
 * stored; retry); STORAGE_FAILED that the storage refused or is damaged.
 * It lives here, beside the tokens, because issuing and verifying one throws it; the
 * relay and `@zeromem/protocol/token` share it. (The relay does not depend on
 * `@zeromem/core`, so it has its own.)
 */
export class RelayError extends Error {
  override readonly name = 'RelayError';
  readonly code: RelayErrorCode;

  constructor(code: RelayErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
