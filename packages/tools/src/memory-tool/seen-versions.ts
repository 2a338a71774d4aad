import { isWithin } from './paths.ts';

/**
 * The version of each file this tool instance last showed the model or wrote for it
 * (one per conversation or agent session). An edit applies to that version or is
 * refused: a model that saw version 3 never overwrites a version 4 written meanwhile by
 * another agent, process or device, whose edit it has not read.
 */
export class SeenVersions {
  readonly #versions = new Map<string, string>();

  /** The version last seen at `path`, or `undefined` when this session has not read or written it. */
  get(path: string): string | undefined {
    return this.#versions.get(path);
  }

  saw(path: string, version: string): void {
    this.#versions.set(path, version);
  }

  /** Forgets what was seen at `path` and under it (a delete or rename moved it away). */
  drop(path: string): void {
    for (const seen of [...this.#versions.keys()]) if (isWithin(seen, path)) this.#versions.delete(seen);
  }
}
