import type { JsonObject, Layer, MemoryRecord } from '../public/memory-record.ts';

/**
 * A memory as the agent integrations show it to a model (`@zeromem/ai`, `@zeromem/mcp`):
 * what it says and when, without storage internals, and without its namespace (the model
 * never sees or chooses one). Each integration describes it with a zod schema of its own
 * zod (core has no zod, and the AI SDK's must be the application's), checked against this type.
 */
export interface MemoryView {
  id: string;
  content: string;
  tags: string[];
  metadata: JsonObject;
  layer: Layer;
  importance: number;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  updatedAt: string;
  version: number;
}

/** The {@link MemoryView} of a stored record. */
export function memoryView(record: MemoryRecord): MemoryView {
  return {
    id: record.id,
    content: record.content,
    tags: record.tags,
    metadata: record.metadata,
    layer: record.layer,
    importance: record.importance,
    createdAt: new Date(record.createdAt).toISOString(),
    updatedAt: new Date(record.updatedAt).toISOString(),
    version: record.version,
  };
}
