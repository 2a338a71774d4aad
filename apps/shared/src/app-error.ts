/**
 * The one error type of the apps' own code (the SDK throws ZeromemError). Every code is
 * stable: the preload turns an IPC failure back into an AppError with the same code, so
 * the renderer can catch by code whether it runs in Electron or in a browser.
 */
export const APP_ERROR_CODES = [
  /** An argument failed validation; nothing was done. */
  'INVALID_INPUT',
  /** No LLM endpoint is configured. */
  'LLM_NOT_CONFIGURED',
  /** The endpoint could not be reached (network, CORS, refused). */
  'LLM_UNREACHABLE',
  /** The endpoint answered with an error status or a body that is not an OpenAI stream. */
  'LLM_FAILED',
  /** The request was cancelled. */
  'ABORTED',
  /** The OS keychain (Electron safeStorage) cannot encrypt here, so no key is stored. */
  'KEYCHAIN_UNAVAILABLE',
  /** The memory has no such record (core's code, kept across IPC). */
  'NOT_FOUND',
  /** The write conflicts with a record already stored (core's code). */
  'CONFLICT',
  /** A quota of the store is full (core's code). */
  'QUOTA_EXCEEDED',
  /** The store cannot be opened or written, e.g. another process holds it (core's code). */
  'STORAGE_FAILED',
  /** Anything else that went wrong in the main process. */
  'INTERNAL',
] as const;

export type AppErrorCode = (typeof APP_ERROR_CODES)[number];

/** What crosses the IPC boundary instead of a thrown error (Electron drops custom fields of errors). */
export interface SerializedAppError {
  code: AppErrorCode;
  message: string;
}

export class AppError extends Error {
  readonly code: AppErrorCode;
  constructor(code: AppErrorCode, message: string) {
    super(message);
    this.name = 'AppError';
    this.code = code;
  }

  toJSON(): SerializedAppError {
    return { code: this.code, message: this.message };
  }
}

/** True for an AppError, optionally of one code. */
export function isAppError(value: unknown, code?: AppErrorCode): value is AppError {
  return value instanceof AppError && (code === undefined || value.code === code);
}

/** Any thrown value as a SerializedAppError (unknown failures become INTERNAL). */
export function serializeError(err: unknown): SerializedAppError {
  if (err instanceof AppError) return err.toJSON();
  // The SDK's ZeromemError: its code crosses as it is when the apps know it.
  const code = (err as { code?: unknown } | null)?.code;
  if (err instanceof Error && typeof code === 'string' && (APP_ERROR_CODES as readonly string[]).includes(code)) return { code: code as AppErrorCode, message: err.message };
  return { code: 'INTERNAL', message: err instanceof Error ? err.message : String(err) };
}

/** The reverse of {@link serializeError}; a malformed value becomes INTERNAL. */
export function deserializeError(value: unknown): AppError {
  const v = value as Partial<SerializedAppError> | null;
  const code = v && typeof v.code === 'string' && (APP_ERROR_CODES as readonly string[]).includes(v.code) ? (v.code as AppErrorCode) : 'INTERNAL';
  return new AppError(code, v && typeof v.message === 'string' ? v.message : 'unknown error');
}
