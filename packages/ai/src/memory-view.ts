import type { MemoryRecord } from '@zeromem/core';
import { z } from 'zod';

/** A memory as the tools show it to a model: what it says and when, without storage internals. */
export const memoryViewSchema = z.object({
  id: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  layer: z.enum(['session', 'long_term', 'knowledge']),
  importance: z.number(),
  createdAt: z.string().describe('ISO 8601'),
  updatedAt: z.string().describe('ISO 8601'),
  version: z.number().int(),
});

/** {@link memoryViewSchema} as a type. */
export type MemoryView = z.infer<typeof memoryViewSchema>;

/** The view of a stored record (no namespace: the model never sees or chooses one). */
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
