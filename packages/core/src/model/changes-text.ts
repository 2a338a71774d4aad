import type { MemoryRecord } from '../public/memory-record.ts';
import { canonicalJson } from './canonical-json.ts';

/** True when a change touches what a record says (content, tags, metadata), not just how it ranks or expires. */
export function changesText(next: Pick<MemoryRecord, 'content' | 'tags' | 'metadata'>, previous: Pick<MemoryRecord, 'content' | 'tags' | 'metadata'>): boolean {
  return (
    next.content !== previous.content ||
    canonicalJson(next.tags) !== canonicalJson(previous.tags) ||
    canonicalJson(next.metadata) !== canonicalJson(previous.metadata)
  );
}
