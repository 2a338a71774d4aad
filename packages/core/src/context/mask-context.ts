import type { ContextSource } from './source.ts';
import type { MemoryRecord } from '../public/memory-record.ts';
import type { Redactor } from '../redact/redactor.ts';

/**
 * The context source with `maskInContext` values masked in every record it hands to
 * context assembly: the stored memory keeps the value, the prompt never sees it (nor
 * does the token count, which is taken of what is rendered).
 */
export function maskingSource(source: ContextSource, redactor: Redactor): ContextSource {
  const mask = (record: MemoryRecord): MemoryRecord => ({ ...record, content: redactor.maskForContext(record.content) });
  return {
    recall: async (namespace, query, options) => {
      const result = await source.recall(namespace, query, options);
      return { ...result, hits: result.hits.map((hit) => ({ ...hit, record: mask(hit.record) })) };
    },
    list: async (namespace, options) => {
      const page = await source.list(namespace, options);
      return { ...page, items: page.items.map(mask) };
    },
    profile: async (namespace, options) => (await source.profile(namespace, options)).map((entry) => ({ ...entry, content: redactor.maskForContext(entry.content) })),
    countAccess: (namespace, ids) => source.countAccess(namespace, ids),
    // Tallies are numbers only; the full-history figure counts the stored lines, unmasked.
    history: (namespace) => source.history(namespace),
  };
}
