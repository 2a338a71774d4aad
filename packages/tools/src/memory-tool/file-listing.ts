import type { AuditEntry } from '@zeromem/core';
import type { BoundMemory } from '../bound-memory.ts';
import { pathOfKey } from './paths.ts';

/** Audit entries read per page while catching up. */
const PAGE = 10_000;

/**
 * The files that exist now, kept by one tool instance between commands: a directory
 * view, `create` and `rename` need every path, and reading every keyed record of the
 * namespace (`profile`) on each of them costs milliseconds per thousand files. The copy
 * is checked against the namespace's audit log on every read (one indexed read of the
 * entries after the last one seen): this instance's own writes are applied as they are
 * made, a foreign write of a memory file (another agent, process or device, a forget)
 * makes it read the files again, and other memories of the namespace leave it as it is.
 */
export class FileListing {
  #files: Map<string, number> | undefined;
  #seq = 0;
  /** Record ids this instance wrote whose audit entries it has not read yet. */
  readonly #own = new Set<string>();

  constructor(private readonly bound: BoundMemory) {}

  /** Every file that exists now with its size in bytes, by path. */
  async current(): Promise<ReadonlyMap<string, number>> {
    // The first read skips to the log's end unseen: the files are read whole after it anyway.
    const foreign = await this.#catchUp(this.#files === undefined);
    if (!this.#files || foreign) this.#files = await this.#read();
    return this.#files;
  }

  /** This instance wrote these records, leaving `changes` (path to size, `undefined`: gone) once they commit. */
  wrote(ids: readonly string[], changes: ReadonlyArray<readonly [path: string, bytes: number | undefined]>): void {
    for (const id of ids) this.#own.add(id);
    if (!this.#files) return;
    for (const [path, bytes] of changes) {
      if (bytes === undefined) this.#files.delete(path);
      else this.#files.set(path, bytes);
    }
  }

  /** Reads the audit entries after the last seen; true when one of them may change the files other than as this instance applied it. */
  async #catchUp(skip: boolean): Promise<boolean> {
    const { memory, namespace } = this.bound;
    let foreign = skip;
    for (;;) {
      const entries = await memory.audit(namespace, { after: this.#seq, limit: PAGE });
      for (const entry of entries) {
        this.#seq = entry.seq;
        if (this.#own.delete(entry.id)) continue;
        if (!foreign && (await this.#touchesFiles(entry))) foreign = true;
      }
      if (entries.length < PAGE) return foreign;
    }
  }

  /** Whether a foreign audit entry may change the files: a write of a memory file's record, or any removal (a removed record may have been one). */
  async #touchesFiles(entry: AuditEntry): Promise<boolean> {
    if (entry.op === 'retier') return false;
    if (entry.op !== 'remember' && entry.op !== 'update') return true;
    const record = await this.bound.memory.get(this.bound.namespace, entry.id, { rewarm: false });
    return record === undefined || (record.key !== null && pathOfKey(record.key) !== undefined);
  }

  async #read(): Promise<Map<string, number>> {
    const files = new Map<string, number>();
    for (const fact of await this.bound.memory.profile(this.bound.namespace)) {
      const path = pathOfKey(fact.key);
      if (path !== undefined) files.set(path, utf8Bytes(fact.content));
    }
    return files;
  }
}

/** UTF-8 bytes of a text. */
export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}
