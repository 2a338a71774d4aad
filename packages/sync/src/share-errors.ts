import { ZeromemError } from '@zeromem/core';

/** Refused records kept on `share.rejected`. */
const KEEP_REJECTED = 100;
/** Distinct reported errors remembered to report repeats once. */
const KEEP_REPORTED = 1000;

/**
 * Where a share's errors go: `onError` when the caller listens; otherwise a refused remote
 * record is only kept on `rejected` (one bad record from a peer never throws) and any other
 * failure is thrown asynchronously rather than lost. Errors that repeat on every reconnect
 * (a refused token, a relay size limit) are reported once.
 */
export class ShareErrors {
  readonly #onError: ((err: ZeromemError) => void) | undefined;
  readonly #reported = new Set<string>();
  readonly #rejected: ZeromemError[] = [];

  constructor(onError: ((err: ZeromemError) => void) | undefined) {
    this.#onError = onError;
  }

  /** The last refused records from other replicas, oldest first. */
  get rejected(): readonly ZeromemError[] {
    return this.#rejected;
  }

  /** A record from another replica that this one cannot store: kept on `rejected`, reported when someone listens. */
  reject(err: ZeromemError): void {
    if (!(err instanceof ZeromemError)) return this.report(err); // not about the record: a real failure
    this.#rejected.push(err);
    if (this.#rejected.length > KEEP_REJECTED) this.#rejected.shift();
    this.#onError?.(err);
  }

  /** A failure of the share. */
  report(err: ZeromemError): void {
    if (err.code === 'CLOSED') return; // the memory was closed under the share: nothing left to do
    const key = `${err.code}:${err.message}`;
    if ((err.code === 'UNAUTHORIZED' || err.code === 'QUOTA_EXCEEDED') && this.#reported.has(key)) return;
    this.#reported.add(key);
    if (this.#reported.size > KEEP_REPORTED) this.#reported.delete(this.#reported.values().next().value!);
    if (this.#onError) this.#onError(err);
    else
      setTimeout(() => {
        throw err; // nobody listens: surface it rather than lose it
      });
  }
}
