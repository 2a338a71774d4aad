import { ZeromemError, type Layer, type Memory, type Namespace, type RecallExplain, type RecordFilter } from '@zeromem/core';
import type { CallbackManagerForRetrieverRun } from '@langchain/core/callbacks/manager';
import { Document } from '@langchain/core/documents';
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';

/** What each retrieved document's `metadata` holds. */
export interface ZeromemDocumentMetadata {
  [key: string]: unknown;
  /** The memory id. */
  id: string;
  /** The ranking score (relevance x importance x recency x heat): orders one query's documents, means nothing across queries. */
  score: number;
  /** Absolute relevance, 0..1, the same scale for every query and store (see `explain.evidence`). */
  relevance: number;
  /** How the score came about: BM25 and vector parts, importance, recency, heat. */
  explain: RecallExplain;
  tags: string[];
  layer: string;
  source: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  updatedAt: string;
  /** The memory's own metadata. */
  metadata: Record<string, unknown>;
}

/** Options of {@link ZeromemRetriever}. */
export interface ZeromemRetrieverInput extends BaseRetrieverInput {
  /** The open memory (`openMemory()` of `@zeromem/core`). */
  memory: Memory;
  /** The namespace to recall from. */
  namespace: Namespace;
  /** How many documents, 1..1000. Default 4. */
  k?: number;
  /** Recall filters (tags, metadata, source, layer, times). */
  filters?: RecordFilter;
  /**
   * The layers searched. Default `['long_term', 'knowledge']`: what was learned, not the
   * chat turns a `ZeromemChatMessageHistory` keeps in the same namespace (add `'session'` for them).
   */
  layers?: Layer[];
  /** Leave out hits scoring below this. Default: any score above 0 (a hit with nothing in common with the query is never returned). */
  minScore?: number;
  /** Leave out hits whose absolute relevance is below this (0..1). Default: recall's; 0 keeps every candidate. */
  minRelevance?: number;
}

/** The layers a retriever searches unless told otherwise. */
const LEARNED_LAYERS: readonly Layer[] = Object.freeze(['long_term', 'knowledge']);

/**
 * A LangChain retriever over `memory.recall` of the long-term layers: each hit becomes a
 * `Document` whose `pageContent` is the memory and whose metadata holds its relevance, score
 * and `explain`; hits below recall's relevance floor (nothing in the namespace is about the
 * query) are left out, so an unrelated query gets no documents.
 * On-device, no LLM and no remote embedding call.
 *
 * @example
 * import { openMemory } from '@zeromem/core';
 * import { ZeromemRetriever } from '@zeromem/langchain';
 *
 * const memory = await openMemory({ name: 'my-agent' });
 * await memory.remember({ namespace: { userId: 'alice' }, content: 'Alice is allergic to peanuts' });
 * const retriever = new ZeromemRetriever({ memory, namespace: { userId: 'alice' }, k: 3 });
 * const docs = await retriever.invoke('what is alice allergic to?');
 * console.log(docs.map((doc) => doc.pageContent)); // [ 'Alice is allergic to peanuts' ]
 * await memory.close();
 */
export class ZeromemRetriever extends BaseRetriever<ZeromemDocumentMetadata> {
  static override lc_name(): string {
    return 'ZeromemRetriever';
  }
  lc_namespace = ['zeromem', 'retrievers'];
  readonly memory: Memory;
  readonly namespace: Readonly<Namespace>;
  readonly k: number;
  readonly filters: RecordFilter | undefined;
  readonly layers: readonly Layer[];
  readonly minScore: number | undefined;
  readonly minRelevance: number | undefined;

  constructor(fields: ZeromemRetrieverInput) {
    super(fields);
    if (typeof fields?.memory?.recall !== 'function') throw new ZeromemError('INVALID_INPUT', 'ZeromemRetriever needs { memory, namespace }: memory is what openMemory() returned.');
    if (typeof fields.namespace !== 'object' || fields.namespace === null) throw new ZeromemError('NAMESPACE_REQUIRED', 'ZeromemRetriever needs { namespace: { userId, agentId?, scope? } }.');
    this.memory = fields.memory;
    this.namespace = Object.freeze({ ...fields.namespace });
    this.k = fields.k ?? 4;
    this.filters = fields.filters;
    this.layers = fields.layers ?? LEARNED_LAYERS;
    this.minScore = fields.minScore;
    this.minRelevance = fields.minRelevance;
  }

  override async _getRelevantDocuments(query: string, _runManager?: CallbackManagerForRetrieverRun): Promise<Document<ZeromemDocumentMetadata>[]> {
    const { hits } = await this.memory.recall(this.namespace, query, {
      k: this.k,
      layers: [...this.layers],
      ...(this.filters ? { filters: this.filters } : {}),
      ...(this.minScore !== undefined ? { minScore: this.minScore } : {}),
      ...(this.minRelevance !== undefined ? { minRelevance: this.minRelevance } : {}),
    });
    return hits.filter((hit) => hit.score > 0).map(
      ({ record, score, relevance, explain }) =>
        new Document<ZeromemDocumentMetadata>({
          id: record.id,
          pageContent: record.content,
          metadata: {
            id: record.id,
            score,
            relevance,
            explain,
            tags: record.tags,
            layer: record.layer,
            source: record.source,
            createdAt: new Date(record.createdAt).toISOString(),
            updatedAt: new Date(record.updatedAt).toISOString(),
            metadata: record.metadata,
          },
        }),
    );
  }
}
