// `recall`: its query, options and result (hits, their explanation, why nothing came back).

import type { Layer, MemoryRecord, TimeInput } from './memory-record.ts';
import type { QuerySignals } from './query-signals.ts';
import type { RankingWeights } from './ranking.ts';
import type { RecordFilter } from './list.ts';
import type { RelevanceEvidence } from './relevance.ts';
import type { ZeromemError } from './errors.ts';

/** One turn of a conversation used as a query. */
export interface ConversationTurn {
  role: 'user' | 'assistant' | 'system' | 'tool';
  content: string;
}

/** Options of `recall(namespace, query, options)`. */
export interface RecallOptions {
  /** How many hits, 1..1000. Default 10. */
  k?: number;
  /** Only records that match (tags, metadata, times, source). */
  filters?: RecordFilter;
  /** Only records of these layers. */
  layers?: Layer[];
  /** The time recency and heat are measured from. Default: the clock. */
  now?: TimeInput;
  /** How text and vector relevance, importance, recency and heat weigh. */
  weights?: Partial<RankingWeights>;
  /** Count these hits as accesses (heat). Default true. A cold hit counted so re-warms. */
  trackAccess?: boolean;
  /** Recall cold-tier records too. Default false. */
  includeCold?: boolean;
  /** Leave out hits scoring below this (scores are those of `explain`). Default 0: keep all. */
  minScore?: number;
  /**
   * Leave out hits whose absolute relevance (`hit.relevance`, 0..1, the same scale in every
   * namespace and store) is below this (0.01: some evidence of its own; 0.5: only what the
   * evidence vouches for). Unset, the floor is the answer's: when no hit reaches
   * `DEFAULT_MIN_RELEVANCE` (0.01, see rank/relevance.ts), recall answers `hits: []` and
   * says why in `reason`, and otherwise keeps the whole page. 0 keeps every candidate, as
   * before relevance had a floor.
   */
  minRelevance?: number;
  /** Keyed facts that held at this time only. Default: now (the clock's, whatever `now` says). */
  asOf?: TimeInput;
  /** Every version of keyed facts, closed ones too (not with `asOf`). Default false. */
  includeClosed?: boolean;
}

/** Why a score came out as it did. `contributions.text + contributions.vector === score`. */
export interface RecallExplain {
  /** Raw BM25 score, or null when the record was not a lexical match. */
  bm25: number | null;
  /**
   * BM25 borrowed from the conversation turn next to this one (same `metadata.session`,
   * `seq` ± 1): `weights.context × min(1, 300 / length) ×` the better neighbour's BM25; null
   * when no neighbour matched (or this is not a turn).
   */
  contextBm25: number | null;
  /** Cosine similarity to the query, or null without vectors. */
  cosine: number | null;
  /** `bm25 + contextBm25` divided by the best such sum among the candidates (0..1). */
  textScore: number;
  /**
   * Cosine divided by the best cosine among the candidates, negative cosines as 0 (0..1).
   * Not min-max: when every candidate is about as similar, none gets a big vector score,
   * so a weak vector side cannot push a strong lexical match down.
   */
  vectorScore: number;
  /**
   * `weights.text * textScore + weights.vector * vectorScore`: ranking's relative mix (the
   * best candidate of this query near 1 whatever it is). Not the hit's absolute relevance:
   * that is `hit.relevance`, made of `evidence`.
   */
  relevance: number;
  /** The absolute relevance (`hit.relevance`) and the lexical and semantic evidence it is made of (see rank/relevance.ts). */
  evidence: RelevanceEvidence;
  importance: number;
  recency: number;
  heat: number;
  /** `1 + weights.speaker` when the query speaks in the first person and this is the user's own memory, else 1. */
  speaker: number;
  /** `1 + weights.time × closeness` to a time the query names (see `RecallResult.signals`), else 1. */
  time: number;
  /** `1 + weights.focus × share of the question's focus words` this memory contains, else 1. */
  focus: number;
  /**
   * The score split by where it came from: `score = relevance × importance × recency × heat
   * × speaker × time × focus = contributions.text + contributions.vector`.
   */
  contributions: { text: number; vector: number };
  /**
   * A keyed fact's interval: `key`, from `validFrom` until `validUntil` (null: still holds),
   * closed by `closedBy`; `null` for unkeyed memories. Validity filters, it never scores.
   */
  validity: { key: string; validFrom: number; validUntil: number | null; closedBy: string | null } | null;
}

/** One recalled memory. */
export interface RecallHit {
  id: string;
  /** Ranking score: orders the hits of one recall, means nothing across queries. */
  score: number;
  /**
   * Absolute relevance, 0..1: the same scale in every query, namespace and store (see
   * `explain.evidence`). `minRelevance` compares against it.
   */
  relevance: number;
  record: MemoryRecord;
  explain: RecallExplain;
}

/** How the vector side took part in a recall. */
export type VectorMode = 'used' | 'no-embedder' | 'query-not-embeddable' | 'no-vectors-yet' | 'embedder-failed';

/** What `recall` returns. */
export interface RecallResult {
  hits: RecallHit[];
  /** `used` unless the recall was lexical only, and why. */
  vector: VectorMode;
  /** Memories of the whole database still waiting for their embedding (found lexically until then). */
  pendingEmbeddings: number;
  /** With `vector: 'embedder-failed'`: why (EMBEDDER_UNAVAILABLE). The hits are lexical only. */
  vectorError?: ZeromemError;
  /** What recall read from the query besides its words (first person, time windows, focus words); their factors are in each hit's `explain`. */
  signals: QuerySignals;
  /**
   * Only when `hits` is empty: why ("nothing relevant: ..."), e.g. the best match's
   * relevance and the floor it missed. An empty answer is an answer: nothing in this
   * namespace is about the query.
   */
  reason?: string;
}
