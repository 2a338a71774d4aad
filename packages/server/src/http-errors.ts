import { isZeromemError, type ErrorCode } from '@zeromem/core';

/** Codes only the service raises (on top of core's {@link ErrorCode}s). */
export type ServiceErrorCode = 'FORBIDDEN' | 'PAYLOAD_TOO_LARGE' | 'METHOD_NOT_ALLOWED' | 'INTERNAL';

/** An error the service answers with: a code, an HTTP status, a message and details. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  constructor(
    readonly code: ErrorCode | ServiceErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The HTTP status of each code. */
export const HTTP_STATUS: Record<ErrorCode | ServiceErrorCode, number> = {
  INVALID_INPUT: 400,
  NAMESPACE_REQUIRED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  // The namespace's record quota: the store is full for it (a rate limit would be 429).
  QUOTA_EXCEEDED: 507,
  CLOSED: 503,
  STORAGE_FAILED: 503,
  EMBEDDER_UNAVAILABLE: 503,
  UNSUPPORTED_ENVIRONMENT: 500,
  DECRYPTION_FAILED: 500,
  INTERNAL: 500,
};

/** The body every error response carries. */
export interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown> };
}

/** The status and body for any thrown value; unknown errors become INTERNAL without their internals. */
export function errorResponse(err: unknown): { status: number; body: ErrorBody } {
  if (isZeromemError(err) || err instanceof ServiceError) {
    const { cause, ...details } = err.details as Record<string, unknown>;
    // A storage cause is an Error object: only its message is sent.
    if (cause !== undefined) details.cause = cause instanceof Error ? cause.message : String(cause);
    return { status: HTTP_STATUS[err.code], body: { error: { code: err.code, message: err.message, details } } };
  }
  return { status: 500, body: { error: { code: 'INTERNAL', message: 'The service failed on this request; see its log.', details: {} } } };
}
