import cliProgress from 'cli-progress';

/** Where progress goes (stderr): a terminal gets a bar redrawn in place, anything else a line now and then. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** How often a line is printed when stderr is not a terminal (logs, CI, cron mail). */
const LINE_EVERY_MS = 1000;

/**
 * A job's progress bar (cli-progress) on stderr: done/total in the job's unit, the rate
 * and the estimated time left. When stderr is not a terminal it prints one plain line at
 * the start, every second and at the end, so logs show progress too.
 */
export class JobProgress {
  readonly #bar: cliProgress.SingleBar;
  #running = false;

  /** `unit` names what `total` counts (bytes, records); `label` starts the line. */
  constructor(
    label: string,
    stream: ProgressStream,
    readonly unit: 'bytes' | 'records',
  ) {
    const amount = unit === 'bytes' ? '{done} of {size}' : '{value}/{total} records';
    this.#bar = new cliProgress.SingleBar(
      {
        format: `${label} [{bar}] {percentage}% | ${amount} | {detail} | ETA {eta_formatted}`,
        stream: stream as NodeJS.WritableStream,
        noTTYOutput: true,
        notTTYSchedule: LINE_EVERY_MS,
        etaBuffer: 50,
        hideCursor: stream.isTTY === true,
        barsize: 24,
      },
      cliProgress.Presets.shades_classic,
    );
  }

  /** Shows the bar from `start` of `total`. */
  start(total: number, start: number, detail: string): void {
    this.#running = true;
    this.#bar.start(Math.max(total, 1), start, this.#payload(start, total, detail));
  }

  /** Moves the bar; `total` may grow (a job that learns its size as it goes). */
  update(value: number, detail: string, total?: number): void {
    if (!this.#running) return;
    if (total !== undefined) this.#bar.setTotal(Math.max(total, 1));
    this.#bar.update(value, this.#payload(value, total ?? this.#bar.getTotal(), detail));
  }

  /** Prints the last state and ends the bar. */
  stop(): void {
    if (!this.#running) return;
    this.#running = false;
    this.#bar.stop();
  }

  #payload(value: number, total: number, detail: string): Record<string, string> {
    return { detail, done: formatBytes(value), size: formatBytes(total) };
  }
}

/** 1234567 -> "1.2 MB". */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1e6) return `${(n / 1e3).toFixed(1)} kB`;
  if (n < 1e9) return `${(n / 1e6).toFixed(1)} MB`;
  return `${(n / 1e9).toFixed(2)} GB`;
}
