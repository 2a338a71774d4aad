import { isWithin } from './paths.ts';

/**
 * The version of each file this tool instance last showed the model or wrote for it
 * (one per conversation or agent session). An edit applies to that version or is
 * refused: a model that saw version 3 never overwrites a version 4 written meanwhile by
 * another agent, process or device, whose edit it has not read.
 */
export class SeenVersions {
  readonly #versions = new Map<string, string>();
  /** The paths whose seen version this session wrote itself (create, str_replace, insert, rename). */
  readonly #written = new Set<string>();

  /** The version last seen at `path`, or `undefined` when this session has not read or written it. */
  get(path: string): string | undefined {
    return this.#versions.get(path);
  }

  /** The version this session last wrote at `path`, while it is the last one it saw there. */
  wrote(path: string): string | undefined {
    return this.#written.has(path) ? this.#versions.get(path) : undefined;
  }

  /** The model was shown `version` of `path` (`own`: this session wrote it). */
  saw(path: string, version: string, own = false): void {
    this.#versions.set(path, version);
    if (own) this.#written.add(path);
    else this.#written.delete(path);
  }

  /** Forgets what was seen at `path` and under it (a delete or rename moved it away). */
  drop(path: string): void {
    for (const seen of [...this.#versions.keys()]) {
      if (!isWithin(seen, path)) continue;
      this.#versions.delete(seen);
      this.#written.delete(seen);
    }
  }
}
