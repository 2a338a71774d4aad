/**
 * Who learns of committed writes (the port's `observe` and `onAuditWrites`): this
 * process's commits are announced by the engine as they happen; other processes' are
 * found by polling, while anyone listens, the writer connection's `PRAGMA data_version`
 * (it changes when another connection committed; a read of shared memory, no I/O).
 */
import type { Connection } from './sqlite-connection.ts';

/** How often other processes' commits are looked for while someone listens. */
const POLL_MS = 100;

interface Observation {
  run(): void;
}

export class ChangeFeed {
  readonly #writer: Connection;
  readonly #observations = new Set<Observation>();
  readonly #auditListeners = new Set<() => void>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #dataVersion = 0;
  #auditSeq = 0;
  #stopped = false;

  constructor(writer: Connection) {
    this.#writer = writer;
  }

  /** Runs `query` now and after each commit (this process's or another's), handing results to `observer`; returns the function that stops it. */
  observe<T>(query: () => Promise<T>, observer: { next: (value: T) => void; error: (err: unknown) => void }): () => void {
    let running = false;
    let again = false;
    let stopped = false;
    const observation: Observation = {
      run: () => {
        if (stopped) return;
        if (running) {
          again = true;
          return;
        }
        running = true;
        query()
          .then(
            (value) => !stopped && observer.next(value),
            (err: unknown) => !stopped && observer.error(err),
          )
          .finally(() => {
            running = false;
            if (again) {
              again = false;
              observation.run();
            }
          });
      },
    };
    this.#observations.add(observation);
    this.#listen();
    observation.run();
    return () => {
      stopped = true;
      this.#observations.delete(observation);
      this.#quietWhenAlone();
    };
  }

  /** Calls `listener` after each commit that appended to the audit log (this process's or another's); returns the function that stops it. */
  onAuditWrites(listener: () => void): () => void {
    const once = () => listener();
    this.#auditListeners.add(once);
    this.#listen();
    return () => {
      this.#auditListeners.delete(once);
      this.#quietWhenAlone();
    };
  }

  /** This process committed a write (`audited`: it appended to the audit log). */
  committed(audited: boolean): void {
    for (const observation of this.#observations) observation.run();
    if (!audited) return;
    if (this.#timer) this.#auditSeq = this.#readAuditSeq();
    this.#auditAppended();
  }

  /** No more announcements (the store closes). */
  stop(): void {
    this.#stopped = true;
    this.#observations.clear();
    this.#auditListeners.clear();
    this.#quietWhenAlone();
  }

  #auditAppended(): void {
    for (const listener of this.#auditListeners) listener();
  }

  #listen(): void {
    if (this.#timer || this.#stopped) return;
    this.#dataVersion = this.#readDataVersion();
    this.#auditSeq = this.#readAuditSeq();
    this.#timer = setInterval(() => this.#poll(), POLL_MS);
    this.#timer.unref?.();
  }

  #quietWhenAlone(): void {
    if (this.#observations.size > 0 || this.#auditListeners.size > 0 || !this.#timer) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #poll(): void {
    if (!this.#writer.db.open) return;
    const version = this.#readDataVersion();
    if (version === this.#dataVersion) return;
    this.#dataVersion = version;
    for (const observation of this.#observations) observation.run();
    const seq = this.#readAuditSeq();
    if (seq !== this.#auditSeq) {
      this.#auditSeq = seq;
      this.#auditAppended();
    }
  }

  #readDataVersion(): number {
    return this.#writer.db.pragma('data_version', { simple: true }) as number;
  }

  /** The audit log's last sequence number (SQLite's AUTOINCREMENT counter): it grows with every append of any process. */
  #readAuditSeq(): number {
    return (this.#writer.pluck("SELECT seq FROM sqlite_sequence WHERE name = 'audit'").get() as number | undefined) ?? 0;
  }
}
