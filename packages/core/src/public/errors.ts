// The errors of @zeromem/core: the stable codes, the details a failure carries, and the one
// error class every failure a caller can provoke is (a class, but the type of every failure:
// the public types name it, so it lives here with its codes).

/**
 * Stable error codes. Catch by `err.code`; the set only grows, a code never changes meaning.
 */
export const ERROR_CODES = [
  'INVALID_INPUT',
  'NOT_FOUND',
  'CONFLICT',
  'NAMESPACE_REQUIRED',
  'QUOTA_EXCEEDED',
  'CLOSED',
  'STORAGE_FAILED',
  'EMBEDDER_UNAVAILABLE',
  'UNSUPPORTED_ENVIRONMENT',
  'UNAUTHORIZED',
  'DECRYPTION_FAILED',
] as const;

/** One of {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** One thing wrong with an input: where (a dotted path) and what to fix. */
export interface InputIssue {
  /** Dotted path into the input, e.g. `tags.3` or `metadata.color`; `""` is the input itself. */
  path: string;
  /** What is wrong and what to do about it. */
  message: string;
}

/** A failed item of a batch, by its position in the batch. */
export interface ItemFailure {
  /** Position of the item in the array that was passed. */
  index: number;
  code: ErrorCode;
  issues: InputIssue[];
}

/** A bad line of an imported file, by its line number (1-based). */
export interface LineFailure {
  line: number;
  code: ErrorCode;
  issues: InputIssue[];
}

/** Structured details that travel with a {@link ZeromemError}. */
export interface ErrorDetails {
  /** Problems with a single input. */
  issues?: InputIssue[];
  /** Problems with the items of a batch, by position. */
  items?: ItemFailure[];
  /** Problems with the lines of an imported file, by line number: the first 100 (`MAX_REPORTED_LINES`). */
  lines?: LineFailure[];
  /** How many lines failed in all, when more than `lines` lists. */
  failedLines?: number;
  /** For CONFLICT: the record that is in the way. */
  existingId?: string;
  /** For CONFLICT on `ifVersion`: the version that is stored. */
  currentVersion?: number;
  /** The underlying storage error, when there is one. */
  cause?: unknown;
  /** For STORAGE_FAILED and QUOTA_EXCEEDED from a store on disk (Node): what is wrong, and with which file. */
  storage?: StorageProblem;
}

/** What is wrong with a store on disk, and which file it is. */
export interface StorageProblem {
  /**
   * `locked`: another process has the store open; `corrupt`: the file is damaged or not a
   * store; `read-only`: it cannot be written; `full`: the disk is full; `unavailable`: any
   * other failure to open, read or write it.
   */
  reason: 'locked' | 'corrupt' | 'read-only' | 'full' | 'unavailable';
  path: string;
}

/**
 * The one error class of zeromem. Every failure a caller can provoke is a
 * `ZeromemError` with a stable {@link ErrorCode}; nothing is written when one is thrown
 * by a write.
 *
 * @example
 * import { ZeromemError, openMemory } from '@zeromem/core';
 *
 * const memory = await openMemory({ name: 'errors' });
 * try {
 *   await memory.remember({ namespace: { userId: 'u1' }, content: '' });
 * } catch (err) {
 *   if (!(err instanceof ZeromemError && err.code === 'INVALID_INPUT')) throw err;
 *   console.log(err.details.issues); // [ { path: 'content', message: … } ]
 * }
 * await memory.close();
 */
export class ZeromemError extends Error {
  override readonly name = 'ZeromemError';
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message);
    this.code = code;
    this.details = details;
  }
}
