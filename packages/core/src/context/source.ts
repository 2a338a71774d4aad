import type { Layer, ListOptions, ListPage, Namespace } from '../model/types.ts';
import type { ConversationTurn } from '../model/validate-recall.ts';
import type { RecallResult } from '../verbs/recall.ts';

/**
 * What context assembly reads through: two public verbs of Memory. Assembly sees exactly
 * what a caller could read, and never writes.
 */
export interface ContextSource {
  recall(
    namespace: Namespace,
    query: string | ConversationTurn[],
    options: { k: number; layers: Layer[]; now?: number; trackAccess: boolean },
  ): Promise<RecallResult>;
  list(namespace: Namespace, options: ListOptions): Promise<ListPage>;
}
