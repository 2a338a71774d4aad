import { z } from '@hono/zod-openapi';
import { FACT_KEY_RULE } from '@zeromem/core';

// The request and response shapes of the service. They validate requests (the
// openapi route definitions use them) and generate /openapi.json; core's own
// validation still runs behind them, so its limits and messages stay the contract.
// They restate core's types for OpenAPI: test/schemas-match-core.test.ts fails, when the
// workspace is type-checked and when it runs, once a schema and core's type drift apart.

const Json = z.any().openapi({ description: 'Any JSON value.' });
const JsonObject = z.record(z.string(), Json).openapi({ description: 'A JSON object.' });
const Time = z.union([z.number(), z.string()]).openapi({ description: 'Epoch milliseconds or an ISO 8601 string.' });
const Duration = z.union([z.number(), z.string()]).openapi({ description: 'Milliseconds, or e.g. "90s", "30m", "2d".' });
const Source = z.enum(['user', 'assistant', 'tool', 'system', 'memory']);
const Layer = z.enum(['session', 'long_term', 'knowledge']);
const FactKey = z.string().openapi({ description: `A fact key: it ${FACT_KEY_RULE}.`, example: 'contact.channel' });

export const NamespaceSchema = z
  .object({ userId: z.string(), agentId: z.string().optional(), scope: z.string().optional() })
  .strict()
  .openapi('Namespace', { description: 'Where a record lives. Every request names its namespace.' });

/** A time as a query parameter: epoch milliseconds (digits only) or an ISO 8601 string. */
function TimeParam(name: string, description: string) {
  return z
    .string()
    .transform((text) => (/^\d+$/.test(text) ? Number(text) : text))
    .optional()
    .openapi({ param: { name, in: 'query' }, description: `${description}: epoch milliseconds or an ISO 8601 string.`, example: '2026-03-04' });
}

/**
 * A boolean query parameter: `true` or `false`. It arrives as text and is checked as one of
 * those two words, but is declared `type: boolean` (how a boolean is written in a query
 * string), so generated clients (openapi-typescript, openapi-fetch) take a boolean, not
 * `"true" | "false"`.
 */
function BooleanParam(name: string, description: string) {
  return z
    .enum(['true', 'false'])
    .transform((text) => text === 'true')
    .optional()
    .openapi({ param: { name, in: 'query' }, type: 'boolean', description: `${description} (default false).` });
}

/** Namespace fields as query parameters (GET and DELETE requests). */
export const NamespaceQuery = z.object({
  userId: z.string().openapi({ param: { name: 'userId', in: 'query' }, example: 'wang' }),
  agentId: z.string().optional().openapi({ param: { name: 'agentId', in: 'query' }, example: 'after-sales' }),
  scope: z.string().optional().openapi({ param: { name: 'scope', in: 'query' } }),
});

export const RecordSchema = z
  .object({
    id: z.string(),
    namespace: NamespaceSchema,
    namespaceKey: z.string(),
    content: z.string(),
    source: Source,
    layer: Layer,
    tags: z.array(z.string()),
    metadata: JsonObject,
    importance: z.number(),
    createdAt: z.number(),
    updatedAt: z.number(),
    expiresAt: z.number().nullable(),
    accessCount: z.number(),
    lastAccessedAt: z.number().nullable(),
    contentHash: z.string(),
    version: z.number().int(),
    tier: z.enum(['hot', 'cold']),
    mergedFrom: z.array(z.string()),
    key: z.string().nullable().openapi({ description: 'The fact key of a keyed fact (e.g. contact.channel), null for other memories.' }),
    validFrom: z.number().nullable().openapi({ description: 'Keyed facts: from when the fact holds (epoch ms).' }),
    validUntil: z.number().nullable().openapi({ description: 'Keyed facts: until when it held (exclusive), null while it holds.' }),
    closedBy: z.string().nullable().openapi({ description: 'Keyed facts: the id of the version that closed this one.' }),
    statedUntil: z.number().nullable().openapi({ description: 'Keyed facts: the end its writer stated (validUntil on remember), or null.' }),
  })
  .strict()
  .openapi('Record');

export const RememberInputSchema = z
  .object({
    namespace: NamespaceSchema,
    content: z.string(),
    id: z.string().optional(),
    source: Source.optional(),
    layer: Layer.optional(),
    tags: z.array(z.string()).optional(),
    metadata: JsonObject.optional(),
    importance: z.number().optional(),
    createdAt: Time.optional(),
    expiresAt: Time.optional(),
    ttl: Duration.optional(),
    key: FactKey.optional().openapi({ description: 'Makes it a keyed fact: it closes the version of the key that held until now.' }),
    validFrom: Time.optional().openapi({ description: 'Keyed facts: from when it holds (default createdAt).' }),
    validUntil: Time.optional().openapi({ description: 'Keyed facts: when it stopped holding, for facts learned late.' }),
  })
  .strict()
  .openapi('RememberInput');

export const RememberBatchSchema = z
  .object({
    memories: z.array(RememberInputSchema).min(1),
    skipInvalid: z.boolean().optional().openapi({ description: 'Write the valid items and report the rest instead of rejecting the batch.' }),
  })
  .strict()
  .openapi('RememberBatch');

const SuggestedUpdateSchema = z
  .object({ id: z.string(), reason: z.string(), differs: z.array(z.enum(['number', 'date', 'name', 'negation'])) })
  .strict()
  .openapi('SuggestedUpdate');
const RedactionCountSchema = z.object({ detector: z.string(), action: z.enum(['mask', 'hash']), count: z.number().int() }).strict().openapi('RedactionCount');
const RememberResultFields = {
  id: z.string(),
  deduplicated: z.boolean(),
  record: RecordSchema,
  redacted: z.array(RedactionCountSchema).optional().openapi({ description: 'With redaction on: what was masked or hashed before storing (counts, never values).' }),
  closed: z.array(z.string()).openapi({ description: 'Keyed facts: the versions this write closed.' }),
  suggestedUpdates: z.array(SuggestedUpdateSchema).openapi({ description: 'Live memories this one may be a new value of (never closed on a guess).' }),
};

export const RememberResultSchema = z.object(RememberResultFields).strict().openapi('RememberResult');

const IssueSchema = z.object({ path: z.string(), message: z.string() }).strict().openapi('Issue');
const ItemFailureSchema = z.object({ index: z.number().int(), code: z.string(), issues: z.array(IssueSchema) }).strict();

export const RememberBatchResultSchema = z
  .object({
    results: z.array(z.object({ ...RememberResultFields, index: z.number().int() }).strict()),
    failures: z.array(ItemFailureSchema),
  })
  .strict()
  .openapi('RememberBatchResult');

export const RecordFilterSchema = z
  .object({
    tags: z.object({ any: z.array(z.string()).optional(), all: z.array(z.string()).optional() }).strict().optional(),
    metadata: JsonObject.optional().openapi({ description: 'Top-level keys that must equal these values.' }),
    where: JsonObject.optional().openapi({
      description: 'A metadata query: { key, eq|ne|gt|gte|lt|lte|in|nin|contains|exists }, or { and: [...] }, { or: [...] }, { not: ... }.',
      example: { and: [{ key: 'status', eq: 'open' }, { key: 'priority', gte: 3 }] },
    }),
    source: z.union([Source, z.array(Source)]).optional(),
    layer: z.union([Layer, z.array(Layer)]).optional(),
    createdAt: z.object({ from: Time.optional(), to: Time.optional() }).strict().optional(),
    updatedAt: z.object({ from: Time.optional(), to: Time.optional() }).strict().optional(),
    key: FactKey.optional().openapi({ description: 'Only the versions of this fact key.' }),
  })
  .strict()
  .openapi('RecordFilter');

export const UpdateBodySchema = z
  .object({
    namespace: NamespaceSchema,
    patch: z
      .object({
        content: z.string().optional(),
        source: Source.optional(),
        layer: Layer.optional(),
        tags: z.array(z.string()).optional(),
        metadata: JsonObject.optional(),
        importance: z.number().optional(),
        expiresAt: Time.nullable().optional(),
        ttl: Duration.optional(),
      })
      .strict(),
    ifVersion: z.number().int().optional().openapi({ description: 'Refuse with 409 CONFLICT unless the stored record has this version.' }),
  })
  .strict()
  .openapi('UpdateBody');

export const ListQuery = NamespaceQuery.extend({
  limit: z.coerce.number().int().optional().openapi({ param: { name: 'limit', in: 'query' }, description: '1..1000, default 50' }),
  cursor: z.string().optional().openapi({ param: { name: 'cursor', in: 'query' } }),
  orderBy: z.enum(['createdAt', 'updatedAt']).optional().openapi({ param: { name: 'orderBy', in: 'query' } }),
  order: z.enum(['asc', 'desc']).optional().openapi({ param: { name: 'order', in: 'query' } }),
  tag: z.union([z.string(), z.array(z.string())]).optional().openapi({ param: { name: 'tag', in: 'query' }, description: 'Repeat for several: records with any of them.' }),
  source: Source.optional().openapi({ param: { name: 'source', in: 'query' } }),
  layer: Layer.optional().openapi({ param: { name: 'layer', in: 'query' } }),
  where: z.string().optional().openapi({ param: { name: 'where', in: 'query' }, description: 'A metadata query as JSON (see RecordFilter.where).' }),
  key: z.string().optional().openapi({ param: { name: 'key', in: 'query' }, description: 'Only the versions of this fact key.', example: 'contact.channel' }),
  asOf: TimeParam('asOf', 'Facts valid at this time instead of now'),
  includeClosed: BooleanParam('includeClosed', 'Closed (replaced) facts too, with their validUntil'),
});

export const ListPageSchema = z.object({ items: z.array(RecordSchema), nextCursor: z.string().nullable() }).strict().openapi('ListPage');

export const RecordVersionSchema = z
  .object({
    version: z.number().int(),
    content: z.string(),
    contentHash: z.string(),
    source: Source,
    layer: Layer,
    tags: z.array(z.string()),
    metadata: JsonObject,
    importance: z.number(),
    createdAt: z.number(),
    updatedAt: z.number(),
    expiresAt: z.number().nullable(),
    mergedFrom: z.array(z.string()),
    changedAt: z.number(),
    changedBy: z.string(),
  })
  .strict()
  .openapi('RecordVersion');

const Turn = z.object({ role: z.enum(['user', 'assistant', 'system', 'tool']), content: z.string() }).strict().openapi('Turn');

export const RecallBodySchema = z
  .object({
    namespace: NamespaceSchema,
    query: z.union([z.string(), z.array(Turn)]),
    k: z.number().int().optional(),
    filters: RecordFilterSchema.optional(),
    layers: z.array(Layer).optional(),
    now: Time.optional(),
    weights: z.record(z.string(), z.number()).optional(),
    trackAccess: z.boolean().optional(),
    includeCold: z.boolean().optional(),
    minScore: z.number().optional(),
    minRelevance: z.number().optional().openapi({ description: 'Leave out hits whose absolute relevance (0..1) is below this (0.01: some evidence of its own; 0: every hit). Unset: when no hit reaches 0.01 the answer is no hits and a reason, else every hit is kept.' }),
    asOf: Time.optional().openapi({ description: 'Keyed facts that held at this time (default now).' }),
    includeClosed: z.boolean().optional().openapi({ description: 'Every version of keyed facts, closed ones too.' }),
  })
  .strict()
  .openapi('RecallBody');

const EvidenceSchema = z
  .object({
    lexical: z.object({ matched: z.number(), possible: z.number(), share: z.number() }).strict().nullable(),
    semantic: z.object({ cosine: z.number(), mean: z.number(), sd: z.number(), z: z.number(), searched: z.number(), share: z.number(), above: z.number() }).strict().nullable(),
    agreement: z.number().openapi({ description: 'How much the lexical share counts, 0..1: the share of unrelated memory pairs the cosine stands above (1 when the meaning cannot judge the words).' }),
    relevance: z.number(),
  })
  .strict()
  .openapi('Evidence', { description: "A hit's absolute relevance and the lexical and semantic evidence it is made of." });

const ExplainSchema = z
  .object({
    bm25: z.number().nullable(),
    contextBm25: z.number().nullable(),
    cosine: z.number().nullable(),
    textScore: z.number(),
    vectorScore: z.number(),
    relevance: z.number(),
    importance: z.number(),
    recency: z.number(),
    heat: z.number(),
    speaker: z.number(),
    time: z.number(),
    focus: z.number(),
    contributions: z.object({ text: z.number(), vector: z.number() }).strict(),
    evidence: EvidenceSchema,
    validity: z
      .object({ key: z.string(), validFrom: z.number(), validUntil: z.number().nullable(), closedBy: z.string().nullable() })
      .strict()
      .nullable()
      .openapi({ description: "A keyed fact's interval (null for other memories)." }),
  })
  .strict()
  .openapi('Explain');

const QuerySignalsSchema = z
  .object({
    firstPerson: z.boolean(),
    timeWindows: z.array(z.object({ text: z.string(), from: z.number(), to: z.number() }).strict()),
    focus: z.array(z.string()),
  })
  .strict()
  .openapi('QuerySignals');

export const RecallResultSchema = z
  .object({
    hits: z.array(
      z
        .object({
          id: z.string(),
          score: z.number().openapi({ description: 'Ranking score: orders the hits of one recall, means nothing across queries.' }),
          relevance: z.number().openapi({ description: 'Absolute relevance, 0..1, the same scale in every query, namespace and store.' }),
          record: RecordSchema,
          explain: ExplainSchema,
        })
        .strict(),
    ),
    vector: z.enum(['used', 'no-embedder', 'query-not-embeddable', 'no-vectors-yet', 'embedder-failed']),
    pendingEmbeddings: z.number().int(),
    /** With vector `embedder-failed`: why (the hits are lexical only). */
    vectorError: z.object({ code: z.string(), message: z.string() }).strict().optional(),
    signals: QuerySignalsSchema,
    reason: z.string().optional().openapi({ description: 'Only when hits is empty: why ("nothing relevant: ..."). An empty answer is an answer.' }),
  })
  .strict()
  .openapi('RecallResult');

const LayerQuota = z.union([z.literal(false), z.object({ maxItems: z.number().int().optional(), maxTokens: z.number().int().optional(), namespace: NamespaceSchema.optional() }).strict()]);

export const ContextBodySchema = z
  .object({
    namespace: NamespaceSchema,
    query: z.union([z.string(), z.array(Turn)]).optional(),
    now: Time.optional(),
    budget: z.number().int().optional(),
    system: z.union([z.string(), z.array(z.string())]).optional(),
    sessionId: z.string().optional(),
    layers: z
      .object({
        system: z.object({ maxTokens: z.number().int().optional() }).strict().optional(),
        profile: LayerQuota.optional().openapi({ description: 'The current keyed facts, first and compact ("key: content (since date)"), within their own quota; false leaves them out.' }),
        session: LayerQuota.optional(),
        long_term: LayerQuota.optional(),
        knowledge: LayerQuota.optional(),
      })
      .strict()
      .optional(),
    maxItemTokens: z.number().int().optional(),
    fullHistory: z.boolean().optional(),
    trackAccess: z.boolean().optional(),
    asOf: Time.optional().openapi({ description: 'Keyed facts as they held at this time (default now).' }),
    includeClosed: z.boolean().optional().openapi({ description: 'Closed versions of keyed facts may be recalled too.' }),
    minRelevance: z.number().optional().openapi({ description: 'The recalled layers take only memories at least this relevant (0..1); default: recall\'s (nothing when no memory reaches 0.01), 0 fills them whatever the relevance.' }),
  })
  .strict()
  .openapi('ContextBody');

const LayerName = z.enum(['system', 'profile', 'session', 'long_term', 'knowledge']);
const LayerUsage = z.object({ tokens: z.number().int(), items: z.number().int(), maxItems: z.number(), maxTokens: z.number() }).strict();

export const BuiltContextSchema = z
  .object({
    text: z.string(),
    messages: z.array(z.object({ role: z.enum(['system', 'user', 'assistant', 'tool']), content: z.string() }).strict()),
    report: z
      .object({
        tokenizer: z.string(),
        budget: z.number().int(),
        tokens: z.number().int(),
        textTokens: z.number().int(),
        messageTokens: z.number().int(),
        layers: z.record(LayerName, LayerUsage),
        included: z.array(z.object({ layer: LayerName, id: z.string(), score: z.number().nullable(), tokens: z.number().int(), truncated: z.boolean() }).strict()),
        dropped: z.array(
          z
            .object({ layer: LayerName, id: z.string(), score: z.number().nullable(), tokens: z.number().int(), reason: z.enum(['quota', 'budget', 'duplicate']), detail: z.string(), duplicateOf: z.string().optional() })
            .strict(),
        ),
        fullHistoryTokens: z.number().int().nullable(),
      })
      .strict(),
  })
  .strict()
  .openapi('BuiltContext');

export const ProfileEntrySchema = z
  .object({ key: z.string(), content: z.string(), id: z.string(), validFrom: z.number().openapi({ description: 'Since when it holds (epoch ms).' }) })
  .strict()
  .openapi('ProfileEntry');

export const ProfileSchema = z.object({ profile: z.array(ProfileEntrySchema).openapi({ description: 'The current keyed facts, sorted by key.' }) }).strict().openapi('Profile');

export const ProfileQuery = NamespaceQuery.extend({ asOf: TimeParam('asOf', 'The profile as it was at this time') });

export const ForgetWhereBodySchema = z.object({ namespace: NamespaceSchema, filter: RecordFilterSchema }).strict().openapi('ForgetWhereBody');

export const AuditEntrySchema = z
  .object({
    seq: z.number().int(),
    op: z.enum(['remember', 'update', 'forget', 'expire', 'merge', 'retier']),
    id: z.string(),
    namespace: NamespaceSchema,
    at: z.number(),
    actor: z.string(),
    replicated: z.literal(true).optional(),
    redacted: z.record(z.string(), z.number().int()).optional().openapi({ description: "Values the write's redaction masked or hashed, per detector (counts, never values)." }),
  })
  .strict()
  .openapi('AuditEntry');

export const StatsSchema = z
  .object({
    count: z.number().int(),
    bySource: z.record(Source, z.number().int()),
    byLayer: z.record(Layer, z.number().int()),
    contentBytes: z.number().int(),
    oldestCreatedAt: z.number().nullable(),
    newestCreatedAt: z.number().nullable(),
    expiredPendingSweep: z.number().int(),
    byTag: z.record(z.string(), z.number().int()).openapi({ description: 'Live records per tag.' }),
  })
  .strict()
  .openapi('Stats');

export const ImportResultSchema = z
  .object({
    imported: z.number().int(),
    deduplicated: z.number().int(),
    expired: z.number().int(),
    failures: z
      .array(z.object({ line: z.number().int(), code: z.string(), issues: z.array(IssueSchema) }).strict())
      .openapi({ description: 'The first lines not imported (100 at most), by line number' }),
    failed: z.number().int().openapi({ description: 'How many lines were not imported in all' }),
    ids: z.array(z.string()),
  })
  .strict()
  .openapi('ImportResult');

export const ErrorSchema = z
  .object({
    error: z
      .object({
        code: z.string().openapi({ example: 'INVALID_INPUT' }),
        message: z.string(),
        details: JsonObject.openapi({ description: 'issues (path, message), items or lines of a batch, existingId, currentVersion, ...' }),
      })
      .strict(),
  })
  .strict()
  .openapi('Error');

export const CountSchema = z.object({ count: z.number().int() }).strict();
export const IdsSchema = z.object({ ids: z.array(z.string()) }).strict();
export const ForgottenSchema = z.object({ forgotten: z.literal(true) }).strict();
export const NamespacesSchema = z.object({ namespaces: z.array(NamespaceSchema) }).strict();
