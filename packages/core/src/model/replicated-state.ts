import type { ReplicatedRecord } from './types.ts';
import type { MemoryRecord } from '../public/memory-record.ts';

/** The fields of a {@link ReplicatedRecord}, all required: the one list replicas agree on. */
export const REPLICATED_FIELDS = ['id', 'content', 'source', 'layer', 'tags', 'metadata', 'importance', 'createdAt', 'updatedAt', 'expiresAt', 'version', 'mergedFrom', 'key', 'validFrom', 'statedUntil'] as const satisfies ReadonlyArray<keyof ReplicatedRecord>;

/** Fails to compile when ReplicatedRecord gains a field the list above lacks. */
type Unlisted = Exclude<keyof ReplicatedRecord, (typeof REPLICATED_FIELDS)[number]>;
const everyFieldListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyFieldListed;

/** The part of a record replicas exchange (see {@link ReplicatedRecord}). */
export function replicatedState(record: MemoryRecord): ReplicatedRecord {
  return Object.fromEntries(REPLICATED_FIELDS.map((field) => [field, record[field] ?? null])) as unknown as ReplicatedRecord;
}

/** Fields a replica written before keyed facts does not send: absent means an unkeyed memory. */
export const OPTIONAL_REPLICATED_FIELDS: ReadonlySet<string> = new Set(['key', 'validFrom', 'statedUntil']);
