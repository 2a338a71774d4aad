import type { JsonObject, JsonValue, RememberInput, Source } from '@zeromem/core';
import { parseDataTime } from './data-time.ts';
import type { IdMap } from './id-map.ts';

/** Fields of a memory line that become part of the record itself, not extra metadata. */
const OWN_FIELDS = new Set(['ns', 'id', 'text', 'speaker', 'ts', 'session', 'seq', 'key']);
/** Speakers that are zeromem sources as they are. */
const SOURCES: ReadonlySet<string> = new Set<Source>(['user', 'assistant', 'memory']);
/** Keys core refuses in metadata at any depth (they reach prototypes). */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** Core's default metadata size limit (bytes of JSON). */
const MAX_METADATA_BYTES = 8 * 1024;

/** A memory line turned into a `remember` input, or why it cannot be. */
export type DatasetMemory =
  | {
      ok: true;
      /** The namespace name as written in the data. */
      ns: string;
      dataId: string;
      input: RememberInput;
      /** Notes about what was changed on the way (dropped extra keys, missing time). */
      notes: string[];
    }
  | { ok: false; ns: string | undefined; dataId: string | undefined; message: string };

/**
 * Converts one line of memories.jsonl: namespace `{ userId: ns }`, `id` (through the
 * id map), `content` = text, `createdAt` = ts read as UTC, `source` from the speaker
 * (anything but user/assistant/memory becomes `user`, the speaker stays in metadata),
 * metadata `{ speaker, session, seq }` plus the line's extra keys; a `key` makes it a keyed
 * fact (`remember({ key })`: it closes the key's earlier version). Content, time and
 * metadata are left for core to validate, so its own messages report what is wrong.
 */
export function toRememberInput(value: unknown, ids: IdMap): DatasetMemory {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, ns: undefined, dataId: undefined, message: 'a memory line must be a JSON object' };
  }
  const line = value as Record<string, unknown>;
  const ns = typeof line.ns === 'string' ? line.ns : undefined;
  const dataId = typeof line.id === 'string' ? line.id : typeof line.id === 'number' ? String(line.id) : undefined;
  if (ns === undefined) return { ok: false, ns, dataId, message: `"ns" must be a string, got ${JSON.stringify(line.ns) ?? 'nothing'}` };
  if (dataId === undefined) return { ok: false, ns, dataId, message: `"id" must be a string, got ${JSON.stringify(line.id) ?? 'nothing'}` };

  const notes: string[] = [];
  const speaker = line.speaker;
  const source: Source = typeof speaker === 'string' && SOURCES.has(speaker) ? (speaker as Source) : 'user';
  const metadata: JsonObject = {};
  for (const key of ['speaker', 'session', 'seq'] as const) {
    if (line[key] !== undefined) metadata[key] = line[key] as JsonValue;
  }
  const dropped: string[] = [];
  for (const [key, extra] of Object.entries(line)) {
    if (OWN_FIELDS.has(key)) continue;
    if (FORBIDDEN_KEYS.has(key) || !isSafeJson(extra)) dropped.push(key);
    else metadata[key] = extra as JsonValue;
  }
  if (dropped.length) notes.push(`extra keys ${dropped.join(', ')} not kept in metadata (keys core refuses)`);
  if (new TextEncoder().encode(JSON.stringify(metadata)).length > MAX_METADATA_BYTES) {
    for (const key of Object.keys(metadata)) if (!OWN_FIELDS.has(key)) delete metadata[key];
    notes.push('extra keys not kept in metadata (over 8 KiB of JSON)');
  }

  const input: RememberInput = {
    namespace: { userId: ns },
    id: ids.toStored(ns, dataId),
    content: line.text as string, // core checks it is non-blank text within its size limit
    source,
    metadata,
    // A fact key makes it a keyed fact, valid from its time (core checks the key).
    ...(line.key === undefined ? {} : { key: line.key as string }),
  };
  const time = parseDataTime(line.ts);
  if (time === undefined) notes.push('no "ts": stored with the time of the run');
  // An unreadable time goes to core as it is, which rejects it with its own message.
  else input.createdAt = Number.isNaN(time) ? (line.ts as string) : time;
  return { ok: true, ns, dataId, input, notes };
}

/** JSON from JSON.parse is JSON; only prototype-reaching keys, at any depth, are refused by core. */
function isSafeJson(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(isSafeJson);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).every(([key, item]) => !FORBIDDEN_KEYS.has(key) && isSafeJson(item));
  }
  return true;
}
