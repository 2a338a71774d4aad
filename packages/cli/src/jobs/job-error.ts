import { isZeromemError, type ErrorCode } from '@zeromem/core';

/** Exit codes of the job commands (import, export, reindex, sweep, ...). */
export const EXIT = {
  /** Done, nothing failed. */
  ok: 0,
  /** The job failed (storage, embedder), or finished with failed items (see the report). */
  failed: 1,
  /** Invalid arguments or input files: nothing was written. */
  invalid: 2,
  /** Stopped by Ctrl-C or SIGTERM: what was committed stays, a rerun continues. */
  interrupted: 130,
} as const;

/**
 * A job that cannot run as asked, with one of core's stable codes: INVALID_INPUT (bad
 * arguments, a bad file), NOT_FOUND (no such file), CONFLICT (a checkpoint for another file).
 */
export class JobError extends Error {
  override readonly name = 'JobError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly exitCode: number = code === 'INVALID_INPUT' || code === 'NOT_FOUND' || code === 'CONFLICT' ? EXIT.invalid : EXIT.failed,
  ) {
    super(message);
  }
}

/** Shorthand for the usual case: a bad argument. */
export function invalidArgument(message: string): JobError {
  return new JobError('INVALID_INPUT', message);
}

/** Where a job writes: the summary (one JSON line) to stdout, people's text to stderr. */
export interface JobIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
}

/** Prints the machine-readable summary line. */
export function printSummary(io: JobIo, summary: Record<string, unknown>): void {
  io.stdout.write(`${JSON.stringify(summary)}\n`);
}

/**
 * Reports a failed job: `zeromem <command>: CODE message` on stderr and
 * `{"ok":false,"error":{code,message}}` on stdout; returns the exit code.
 */
export function reportFailure(io: JobIo, command: string, err: unknown): number {
  if (err instanceof JobError || isZeromemError(err)) {
    const code = err.code;
    io.stderr.write(`zeromem ${command}: ${code}: ${err.message}\n`);
    printSummary(io, { ok: false, command, error: { code, message: err.message } });
    return err instanceof JobError ? err.exitCode : code === 'INVALID_INPUT' || code === 'NAMESPACE_REQUIRED' ? EXIT.invalid : EXIT.failed;
  }
  io.stderr.write(`zeromem ${command} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  printSummary(io, { ok: false, command, error: { code: 'FAILED', message: err instanceof Error ? err.message : String(err) } });
  return EXIT.failed;
}
