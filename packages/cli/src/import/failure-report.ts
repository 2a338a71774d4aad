import { closeSync, fsyncSync, openSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import type { InputIssue } from '@zeromem/core';

/** One line of the failure report. */
export interface FailureLine {
  /** 1-based line of the input file where the item starts. */
  line: number;
  /** Core's stable code: INVALID_INPUT, NAMESPACE_REQUIRED, CONFLICT, ... */
  code: string;
  message: string;
  issues?: InputIssue[];
  /** The item as read (an object), or its text when it could not be read. */
  item: unknown;
}

/**
 * The failure report: JSONL, one {@link FailureLine} per item that was not stored, in file
 * order. It is created on the first failure; a resumed import first cuts it back to its
 * length at the last checkpoint, so no failure is listed twice.
 */
export class FailureReport {
  #fd: number | undefined;
  #bytes: number;

  constructor(
    readonly path: string,
    resumeAt: number | undefined,
  ) {
    if (resumeAt === undefined) {
      rmSync(path, { force: true });
      this.#bytes = 0;
      return;
    }
    let size = 0;
    try {
      size = statSync(path).size;
    } catch {
      // gone: start it again
    }
    if (size > resumeAt) truncateSync(path, resumeAt);
    this.#bytes = Math.min(size, resumeAt);
  }

  /** Bytes written so far (kept in the checkpoint). */
  get bytes(): number {
    return this.#bytes;
  }

  /** True once it holds a failure. */
  get written(): boolean {
    return this.#bytes > 0;
  }

  /** Appends the failures of one batch and syncs them to disk. */
  append(failures: FailureLine[]): void {
    if (!failures.length) return;
    this.#fd ??= openSync(this.path, 'a');
    const text = failures.map((f) => `${JSON.stringify(f)}\n`).join('');
    writeSync(this.#fd, text);
    fsyncSync(this.#fd);
    this.#bytes += Buffer.byteLength(text);
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}
