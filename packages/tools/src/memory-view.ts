import type { MemoryRecord } from '@zeromem/core';
import { memoryView as coreView, type MemoryView as CoreMemoryView } from '@zeromem/core/internal';
import { z } from 'zod';

/**
 * A memory as the tools return it: core's `MemoryView` (what it says and when, without
 * storage internals or namespace), as a zod schema, plus, for a keyed fact (`set_fact`),
 * its key and the time it holds from (and until, for an earlier version).
 */
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
  key: z.string().optional().describe('Only on facts set with set_fact: the fact key'),
  validFrom: z.string().optional().describe('Only on facts set with set_fact: since when it holds, ISO 8601'),
  validUntil: z.string().optional().describe('Only on an earlier version of a fact: when a later one replaced it, ISO 8601'),
});

/** {@link memoryViewSchema} as a type. */
export type MemoryView = z.infer<typeof memoryViewSchema>;

const iso = (time: number) => new Date(time).toISOString();

/** The {@link MemoryView} of a stored record. */
export function memoryView(record: MemoryRecord): MemoryView {
  const view: MemoryView = coreView(record);
  if (record.key === null) return view;
  return { ...view, key: record.key, ...(record.validFrom === null ? {} : { validFrom: iso(record.validFrom) }), ...(record.validUntil === null ? {} : { validUntil: iso(record.validUntil) }) };
}

// Checked when compiled: the schema has exactly core's fields and the fact fields, and every core view fits it.
type Check<T extends true> = T;
type FactFields = 'key' | 'validFrom' | 'validUntil';
type SameFields = [keyof CoreMemoryView | FactFields] extends [keyof MemoryView] ? ([keyof MemoryView] extends [keyof CoreMemoryView | FactFields] ? true : false) : false;
type DescribesCoreView = Check<SameFields extends true ? (CoreMemoryView extends MemoryView ? true : false) : false>;
