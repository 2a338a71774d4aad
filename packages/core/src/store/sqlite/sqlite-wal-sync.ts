/**
 * Durable commits without blocking the event loop. better-sqlite3 runs SQLite on the
 * event loop, so at `synchronous=FULL` each commit's sync of the WAL (1-60 ms on a loaded disk)
 * stopped everything else of the process: other verbs, sync's sockets, a relay in the same
 * process. Instead the writer commits at `NORMAL` (the WAL frames written, not synced) and
 * a durable write is acknowledged once `fdatasync` of the WAL, run on libuv's threads, is
 * done; it must have begun after the commit, so a commit made while one runs waits for the
 * next, which serves every commit made meanwhile (group commit across transactions). The
 * WAL is one file whose frames are appended in commit order, and a sync covers every frame
 * written before it, whichever descriptor asks (what SQLite's own sync at `FULL` does:
 * `fdatasync` of the WAL). On macOS libuv's `fdatasync` is `F_FULLFSYNC`, which also empties
 * the drive's cache (SQLite's `FULL` does not unless `fullfsync` is on): slower there, and
 * safer.
 *
 * What changes for others: the commit is readable before it is acknowledged (at `FULL`,
 * only after its sync). A reader that sees it and a power cut before the sync lose it
 * together with its caller's acknowledgement, which was never given; a later commit (a
 * replica's cursor, say) cannot outlive it, as SQLite's recovery keeps a prefix of the WAL.
 * A process of an earlier release syncs at `FULL`, which also covers our frames before it.
 */
import fs from 'node:fs';

/** The syncs of one store's WAL, see the module comment. */
export class WalSync {
  readonly #fd: number;
  /** Commits waiting for the next sync (one that begins after they were written). */
  #waiting: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  #running = false;

  /** @param walPath the store's `-wal` file (it exists while a connection has the store open in WAL mode) */
  constructor(walPath: string) {
    // Read-only is enough for fdatasync on Linux and macOS; the file is SQLite's to write.
    this.#fd = fs.openSync(walPath, 'r');
  }

  /** Resolves once a sync of the WAL that began after this call is done; rejects with its error (the caller cannot know what is on disk). */
  synced(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      if (!this.#running) this.#sync();
    });
  }

  /** Closes the descriptor; call once nothing waits (the store ends its writes first). */
  close(): void {
    fs.closeSync(this.#fd);
  }

  #sync(): void {
    const batch = this.#waiting;
    this.#waiting = [];
    this.#running = true;
    // `fs.fdatasync`, not a named import: tests hold or fail the sync through it.
    fs.fdatasync(this.#fd, (err) => {
      this.#running = false;
      for (const commit of batch) {
        if (err) commit.reject(err);
        else commit.resolve();
      }
      if (this.#waiting.length > 0) this.#sync();
    });
  }
}
