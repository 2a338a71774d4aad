import { isZeromemError, type Clock, type JsonObject, type LatestVersion, type MemoryRecord, type TimeInput } from '@zeromem/core';
import { writeOptions, type BoundMemory } from '../bound-memory.ts';
import { FileListing, utf8Bytes } from './file-listing.ts';
import { isWithin, keyOf, pathOfKey } from './paths.ts';
import { ToolFailure } from './tool-failure.ts';

/** Most versions of one file read to find its latest (a file edited more often keeps its newest versions in reach). */
const MAX_VERSIONS = 1000;

/** A file as it stands: its latest version's record id, version token and text. */
export interface MemoryFile {
  path: string;
  /** The latest version's record id and record `version`: what an edit is written on top of (`ifLatest`), so an edit fails if another writer made a version or changed this one in place since. */
  basis: LatestVersion;
  /** The record id and its `version` ({@link versionOf}): what an edit is checked against, so an in-place `update` of the record counts as a change too. */
  version: string;
  text: string;
}

/** A file of a listing: its path and size (UTF-8 bytes). */
export interface MemoryFileEntry {
  path: string;
  bytes: number;
}

/**
 * Where a path stands: its latest version (`null` when the key has none), and its text
 * when that version holds now (a deleted or renamed file's latest version has ended).
 */
export interface PathState {
  latest: string | null;
  file: MemoryFile | undefined;
  /**
   * True when the latest version was written on top of `version` (a {@link versionOf}),
   * directly or through later edits (each version names the one it was based on): false
   * when it was left aside, e.g. an edit made on another device at the same time that lost.
   */
  buildsOn(version: string): boolean;
}

/** A version as the tool tracks it: the record id and the record's own `version` (an in-place `update` raises it). */
export function versionOf(record: Pick<MemoryRecord, 'id' | 'version'>): string {
  return `${record.id}#${record.version}`;
}

/**
 * The memory tool's files over one bound namespace: each file a keyed fact (key from
 * its path, paths.ts), each edit a new version that closes the one before, so core's
 * keyed-fact reads give history (`list` with `key` and `includeClosed`) and the directory
 * as it was (`profile` with `asOf`). Deleting ends the latest version's interval (a new
 * version with the same text, the same start and a stated end, now): nothing holds
 * afterwards, and `asOf` before the delete still reads the file.
 */
export class MemoryFiles {
  readonly #listing: FileListing;

  /** `clock` must be the memory's (openMemory's `clock`): a delete ends a file at its now. */
  constructor(
    readonly bound: BoundMemory,
    private readonly clock: Clock,
  ) {
    this.#listing = new FileListing(bound);
  }

  /** Where `path` stands now. */
  async state(path: string): Promise<PathState> {
    const versions = await this.versions(path);
    const latest = latestOf(versions);
    const buildsOn = (version: string) => descends(versions, latest, version.slice(0, version.lastIndexOf('#')));
    if (!latest) return { latest: null, file: undefined, buildsOn };
    return { latest: latest.id, file: holdsNow(latest, this.clock.now()) ? { path, basis: { id: latest.id, version: latest.version }, version: versionOf(latest), text: latest.content } : undefined, buildsOn };
  }

  /** Every version of the file at `path`, as core stores them (newest written first). */
  async versions(path: string): Promise<MemoryRecord[]> {
    const { memory, namespace } = this.bound;
    return (await memory.list(namespace, { key: keyOf(path), includeClosed: true, limit: MAX_VERSIONS })).items;
  }

  /** The files that exist (at `asOf`, default now), sorted by path. */
  async files(asOf?: TimeInput): Promise<MemoryFileEntry[]> {
    const entries: MemoryFileEntry[] = [];
    if (asOf === undefined) {
      for (const [path, bytes] of await this.#listing.current()) entries.push({ path, bytes });
    } else {
      for (const fact of await this.bound.memory.profile(this.bound.namespace, { asOf })) {
        const path = pathOfKey(fact.key);
        if (path !== undefined) entries.push({ path, bytes: utf8Bytes(fact.content) });
      }
    }
    return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * Writes `text` as the file's next version, if its latest version is still `basedOn`
   * (a record id, or the id and record version of a {@link MemoryFile}'s `basis`; `null`:
   * the key has none). Returns the new version ({@link versionOf}); `undefined` when another
   * writer got there first (nothing was written).
   */
  async write(path: string, text: string, basedOn: LatestVersion | string | null): Promise<string | undefined> {
    const { memory, namespace } = this.bound;
    const basedOnId = typeof basedOn === 'object' && basedOn !== null ? basedOn.id : basedOn;
    try {
      const result = await memory.remember(
        { namespace, key: keyOf(path), content: text, source: 'assistant', metadata: { path, ...(basedOnId === null ? {} : { basedOn: basedOnId }) } },
        { ifLatest: basedOn, ...writeOptions(this.bound) },
      );
      this.#listing.wrote([result.id], [[path, utf8Bytes(result.record.content)]]);
      return versionOf(result.record);
    } catch (err) {
      if (isZeromemError(err) && err.code === 'CONFLICT') return undefined;
      throw storeRefusal(err, path);
    }
  }

  /**
   * Ends the files at `paths` in one transaction (a delete): for each, a version with its
   * text, its start and a stated end of now, after which nothing of that path holds. A
   * file written meanwhile by another writer starts later than the ended version, so its
   * edit stands (the file is not deleted rather than the edit lost).
   */
  async end(paths: readonly string[]): Promise<void> {
    const latest = await this.#latestNow(paths);
    try {
      const { results } = await this.bound.memory.rememberMany(latest.map(([path, record]) => this.#ending(path, record, { ended: 'delete' })), writeOptions(this.bound));
      this.#listing.wrote(
        results.map((result) => result.id),
        latest.map(([path]) => [path, undefined]),
      );
    } catch (err) {
      // A full namespace cannot take the closing versions: the files are forgotten instead
      // (with their history), so a delete always frees room.
      if (!(isZeromemError(err) && err.code === 'QUOTA_EXCEEDED')) throw storeRefusal(err, paths[0]!);
      for (const path of paths) await this.bound.memory.forgetWhere(this.bound.namespace, { key: keyOf(path) }, writeOptions(this.bound));
    }
  }

  /**
   * Moves files in one transaction (a rename): each `[from, to]` gets a first version at
   * `to` with the text of `from`'s latest, and `from` is ended as by a delete. Returns, by
   * destination path, the version moved and the new version ({@link versionOf} both).
   */
  async move(moves: ReadonlyArray<readonly [from: string, to: string]>): Promise<Map<string, { moved: string; version: string }>> {
    const latest = await this.#latestNow(moves.map(([from]) => from));
    const destination = new Map(moves);
    const inputs = latest.flatMap(([from, record]) => {
      const to = destination.get(from)!;
      return [
        { namespace: this.bound.namespace, key: keyOf(to), content: record.content, source: record.source, metadata: { path: to, renamedFrom: from } },
        this.#ending(from, record, { ended: 'rename', renamedTo: to }),
      ];
    });
    try {
      const { results } = await this.bound.memory.rememberMany(inputs, writeOptions(this.bound));
      this.#listing.wrote(
        results.map((result) => result.id),
        latest.flatMap(([from, record]) => [
          [from, undefined],
          [destination.get(from)!, utf8Bytes(record.content)],
        ]),
      );
      return new Map(latest.map(([from, record], i) => [destination.get(from)!, { moved: versionOf(record), version: versionOf(results[2 * i]!.record) }]));
    } catch (err) {
      throw storeRefusal(err, moves[0]![0]);
    }
  }

  /** The latest version of each path that holds now (paths without one are left out). */
  async #latestNow(paths: readonly string[]): Promise<Array<[string, MemoryRecord]>> {
    const now = this.clock.now();
    const found = await Promise.all(paths.map(async (path) => [path, latestOf(await this.versions(path))] as const));
    return found.filter((entry): entry is [string, MemoryRecord] => entry[1] !== undefined && holdsNow(entry[1], now));
  }

  /** The version that ends a file: its latest's text and start, with a stated end of now. */
  #ending(path: string, record: MemoryRecord, why: JsonObject) {
    const now = this.clock.now();
    return {
      namespace: this.bound.namespace,
      key: keyOf(path),
      content: record.content,
      source: record.source,
      metadata: { ...record.metadata, path, basedOn: record.id, ...why },
      validFrom: record.validFrom!,
      validUntil: Math.max(now, record.validFrom! + 1),
    };
  }

  /** The files that exist now under `dir` (any depth), sorted by path. */
  async filesUnder(dir: string): Promise<MemoryFileEntry[]> {
    return (await this.files()).filter((entry) => entry.path !== dir && isWithin(entry.path, dir));
  }
}

/** The latest of a key's versions by (validFrom, id): the one a new version closes. */
function latestOf(versions: readonly MemoryRecord[]): MemoryRecord | undefined {
  let latest: MemoryRecord | undefined;
  for (const record of versions) {
    if (!latest || record.validFrom! > latest.validFrom! || (record.validFrom === latest.validFrom && record.id > latest.id)) latest = record;
  }
  return latest;
}

/** True when `from` is `version` or was based on it through the chain of `basedOn` links (versions.metadata.basedOn). */
function descends(versions: readonly MemoryRecord[], from: MemoryRecord | undefined, version: string): boolean {
  const byId = new Map(versions.map((record) => [record.id, record]));
  for (let at = from, steps = 0; at && steps <= versions.length; steps++) {
    if (at.id === version) return true;
    const basedOn = at.metadata.basedOn;
    at = typeof basedOn === 'string' ? byId.get(basedOn) : undefined;
  }
  return false;
}

/** True when a version is the file's text now: not ended (a delete or rename states an end). */
function holdsNow(record: MemoryRecord, now: number): boolean {
  return record.validUntil === null || record.validUntil > now;
}

/** A store error the model can act on (too large, namespace full), as the text it reads; other errors as they are. */
function storeRefusal(err: unknown, path: string): unknown {
  if (!isZeromemError(err)) return err;
  if (err.code === 'QUOTA_EXCEEDED') {
    return new ToolFailure(`Error: The memory store is full (${err.message}) Nothing was written to ${path}: delete files you no longer need, then retry.`);
  }
  if (err.code === 'INVALID_INPUT') {
    const issues = (err.details.issues ?? err.details.items?.flatMap((item) => item.issues) ?? []).map((issue) => (issue.path === 'content' ? `the file text ${issue.message}` : `${issue.path}: ${issue.message}`));
    return new ToolFailure(`Error: The memory store refused ${path}: ${issues.join('; ') || err.message}. Nothing was written.`);
  }
  return err;
}


