import type { Memory, RememberInput } from '@zeromem/core';
import { toRememberInput } from './dataset-memory.ts';
import { IdMap } from './id-map.ts';
import { readJsonl } from './read-jsonl.ts';

/** A memory line that could not be stored. */
export interface ReplayFailure {
  line: number;
  ns: string | undefined;
  id: string | undefined;
  /** Core's error code (INVALID_INPUT, CONFLICT, ...) or BAD_LINE for a line that is not a memory. */
  code: string;
  message: string;
}

/** What the replay knows about one namespace after storing it. */
export interface NamespaceInfo {
  /** Records stored (duplicates not counted). */
  records: number;
  /** Latest `createdAt` stored, epoch ms. */
  latest: number | undefined;
}

/** The outcome of replaying a memories file. */
export interface ReplayResult {
  /** Memory lines read. */
  read: number;
  /** New records written. */
  stored: number;
  /** Lines whose content was already stored under another id: kept as an alias of that id. */
  aliased: number;
  /** Lines repeating an id with the same content: nothing new to store. */
  repeated: number;
  failures: ReplayFailure[];
  /** Conversion notes with the lines they apply to (first 5 lines per note). */
  notes: Array<{ note: string; lines: number[]; count: number }>;
  ids: IdMap;
  namespaces: Map<string, NamespaceInfo>;
}

/** Options of {@link replayMemories}. */
export interface ReplayOptions {
  /** Memories per `rememberMany` call. Default 1000. */
  chunkSize?: number;
  /** Called after every stored chunk. */
  onProgress?: (state: { read: number; stored: number }) => void;
}

interface Pending {
  line: number;
  ns: string;
  dataId: string;
  input: RememberInput;
}

/**
 * Writes every memory of a JSONL file through the public API, in file order within each
 * namespace: `rememberMany` per namespace in chunks, with `skipInvalid` so one bad line
 * does not stop the others; each failure comes back with its line number.
 */
export async function replayMemories(memory: Memory, file: string, options: ReplayOptions = {}): Promise<ReplayResult> {
  const chunkSize = options.chunkSize ?? 1000;
  const ids = new IdMap();
  const result: ReplayResult = { read: 0, stored: 0, aliased: 0, repeated: 0, failures: [], notes: [], ids, namespaces: new Map() };
  const notes = new Map<string, { note: string; lines: number[]; count: number }>();
  const buffers = new Map<string, Pending[]>();
  let buffered = 0;

  const flush = async (ns: string) => {
    const batch = buffers.get(ns);
    if (!batch?.length) return;
    buffers.delete(ns);
    buffered -= batch.length;
    await store(memory, ns, batch, result);
    options.onProgress?.({ read: result.read, stored: result.stored });
  };

  for await (const { line, value } of readJsonl(file)) {
    result.read++;
    const converted = toRememberInput(value, ids);
    if (!converted.ok) {
      result.failures.push({ line, ns: converted.ns, id: converted.dataId, code: 'BAD_LINE', message: converted.message });
      continue;
    }
    for (const note of converted.notes) {
      const entry = notes.get(note) ?? { note, lines: [], count: 0 };
      if (entry.lines.length < 5) entry.lines.push(line);
      entry.count++;
      notes.set(note, entry);
    }
    const batch = buffers.get(converted.ns) ?? [];
    batch.push({ line, ns: converted.ns, dataId: converted.dataId, input: converted.input });
    buffers.set(converted.ns, batch);
    buffered++;
    if (batch.length >= chunkSize) await flush(converted.ns);
    // Interleaved namespaces: do not hold more than a few chunks in memory.
    else if (buffered >= chunkSize * 4) for (const ns of [...buffers.keys()]) await flush(ns);
  }
  for (const ns of [...buffers.keys()]) await flush(ns);
  result.notes = [...notes.values()];
  result.failures.sort((a, b) => a.line - b.line);
  return result;
}

async function store(memory: Memory, ns: string, batch: Pending[], result: ReplayResult): Promise<void> {
  let written;
  try {
    written = await memory.rememberMany(
      batch.map((item) => item.input),
      { skipInvalid: true },
    );
  } catch (err) {
    // With skipInvalid only whole-batch problems (storage, quota) throw: nothing of the chunk was written.
    const lines = `${batch[0]!.line}..${batch[batch.length - 1]!.line}`;
    throw new Error(`storing the memories of namespace "${ns}" on lines ${lines} failed: ${(err as Error).message}`, { cause: err });
  }
  const info = result.namespaces.get(ns) ?? { records: 0, latest: undefined };
  result.namespaces.set(ns, info);
  for (const item of written.results) {
    const pending = batch[item.index]!;
    const storedId = pending.input.id as string;
    if (!item.deduplicated) {
      result.stored++;
      info.records++;
      info.latest = Math.max(info.latest ?? Number.NEGATIVE_INFINITY, item.record.createdAt);
    } else if (item.id === storedId) {
      result.repeated++;
    } else {
      result.aliased++;
      result.ids.addAlias(ns, item.id, pending.dataId);
    }
  }
  for (const failure of written.failures) {
    const pending = batch[failure.index]!;
    const message = failure.issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ');
    result.failures.push({ line: pending.line, ns, id: pending.dataId, code: failure.code, message });
  }
}
