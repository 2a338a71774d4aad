import type { ProfileEntry } from '../public/profile.ts';
import type { ListOptions, ListPage } from '../public/list.ts';
import type { Layer, Namespace } from '../public/memory-record.ts';
import type { ConversationTurn, RecallResult } from '../public/recall.ts';
import type { HistoryTally } from './history-counts.ts';

/**
 * What context assembly reads through: two public verbs of Memory, so a context holds
 * nothing a caller could not read; the full-history tallies (numbers); and the access
 * count of the memories it keeps.
 */
export interface ContextSource {
  recall(
    namespace: Namespace,
    query: string | ConversationTurn[],
    options: { k: number; layers: Layer[]; now?: number; trackAccess: boolean; asOf?: number; includeClosed?: boolean },
  ): Promise<RecallResult>;
  /** The namespace's current keyed facts (at `asOf`), by key. */
  profile(namespace: Namespace, options: { asOf?: number }): Promise<ProfileEntry[]>;
  list(namespace: Namespace, options: ListOptions): Promise<ListPage>;
  /**
   * The full-history tallies of a namespace, caught up to now: for a layer (the session
   * layer of one `sessionId` when given) the tokens of its live memories' lines and their number.
   */
  history(namespace: Namespace): Promise<(layer: Layer, sessionId?: string) => HistoryTally>;
  /** Counts these records as accessed (heat), as a recall hit is; importance does not change. */
  countAccess(namespace: Namespace, ids: readonly string[]): Promise<void>;
}
