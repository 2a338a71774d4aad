/** Where progress goes: stderr by default (stdout carries the results). */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/**
 * A progress line on stderr. On a terminal it is rewritten in place as often as it is
 * updated; elsewhere (logs, CI) a line is printed at most every `everyMs` (5 s).
 */
export class Progress {
  readonly #stream: ProgressStream;
  readonly #everyMs: number;
  #last = 0;
  #open = false;

  constructor(stream: ProgressStream = process.stderr, everyMs = 5000) {
    this.#stream = stream;
    this.#everyMs = everyMs;
  }

  /** Shows the current state of a running step. */
  update(text: string): void {
    if (this.#stream.isTTY) {
      this.#stream.write(`\r\u001b[K${text}`);
      this.#open = true;
      return;
    }
    const now = Date.now();
    if (now - this.#last < this.#everyMs) return;
    this.#last = now;
    this.#stream.write(`${text}\n`);
  }

  /** Prints a line that stays (the end of a step, a warning). */
  log(text: string): void {
    if (this.#open) this.#stream.write('\r\u001b[K');
    this.#open = false;
    this.#stream.write(`${text}\n`);
  }
}

/** `n` with thousands separators. */
export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Milliseconds as seconds with one decimal. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
