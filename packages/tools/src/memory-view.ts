import { memoryView, type MemoryView as CoreMemoryView } from '@zeromem/core/internal';
import { z } from 'zod';

export { memoryView };

/**
 * A memory as the tools return it: core's `MemoryView` (what it says and when, without
 * storage internals or namespace), as a zod schema.
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
});

/** {@link memoryViewSchema} as a type. */
export type MemoryView = z.infer<typeof memoryViewSchema>;

// Checked when compiled: the schema has exactly core's fields, and every view fits it.
type Check<T extends true> = T;
type SameFields = [keyof CoreMemoryView] extends [keyof MemoryView] ? ([keyof MemoryView] extends [keyof CoreMemoryView] ? true : false) : false;
type DescribesCoreView = Check<SameFields extends true ? (CoreMemoryView extends MemoryView ? true : false) : false>;
