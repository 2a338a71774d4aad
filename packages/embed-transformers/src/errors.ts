import { ZeromemError } from '@zeromem/core';

/**
 * The error every failure to set up or run a model becomes: `EMBEDDER_UNAVAILABLE`,
 * with the original error in `details.cause`. Memories are still found lexically.
 */
export function embedderUnavailable(message: string, cause?: unknown): ZeromemError {
  return new ZeromemError('EMBEDDER_UNAVAILABLE', message, cause === undefined ? {} : { cause });
}

/** Builds an `INVALID_INPUT` error for a bad option. */
export function invalidOption(path: string, message: string): ZeromemError {
  return new ZeromemError('INVALID_INPUT', `Invalid embedder options: ${path}: ${message}`, { issues: [{ path, message }] });
}

/** The message of anything thrown. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
