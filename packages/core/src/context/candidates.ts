import type { MemoryRecord } from '../public/memory-record.ts';
import type { Fill, Candidate } from './fill.ts';
import { MAX_LAYER_ITEMS, type PreparedContext, type PreparedLayer } from './options.ts';
import { itemLine, profileLine, turnRole } from './render.ts';
import type { ContextSource } from './source.ts';
import { chatMessageTokens } from './tokenizer.ts';
import type { Tokenizer } from '../public/tokenizer.ts';

/** Candidates of one layer, best first: session turns newest first, recall hits by score (without a query: newest first). */
export async function fetchCandidates(
  source: ContextSource,
  opts: PreparedContext,
  layer: PreparedLayer,
  fill: Fill,
  count: (text: string) => number,
  tokenizer: Tokenizer,
): Promise<Candidate[]> {
  // As many as the layers' quotas hold together (a layer may take what the others leave
  // unused), and a few more, so the report shows what was left out.
  const pool = Math.min(MAX_LAYER_ITEMS, opts.layers.reduce((sum, l) => sum + l.maxItems, 0) + 10);
  const make = (record: MemoryRecord, score: number | null): Candidate => {
    let content = record.content;
    let truncated = false;
    if (opts.maxItemTokens !== undefined && count(content) > opts.maxItemTokens) {
      content = `${tokenizer.truncate(content, Math.max(0, opts.maxItemTokens - 1))}…`;
      truncated = true;
    }
    const item = { content, role: turnRole(record.source) };
    return {
      layer: layer.layer,
      id: record.id,
      score,
      item,
      truncated,
      lineUnit: count(`${itemLine(layer.layer, item)}\n`),
      chatUnit: layer.layer === 'session' ? chatMessageTokens(count, item) : 0,
      content: record.content,
    };
  };
  const validity = opts.includeClosed ? { includeClosed: true } : opts.asOf !== undefined ? { asOf: opts.asOf } : {};
  if (layer.layer === 'profile') {
    const entries = await source.profile(layer.namespace, opts.asOf !== undefined ? { asOf: opts.asOf } : {});
    return entries.map((entry) => {
      const item = { content: profileLine(entry), role: 'system' as const };
      return { layer: 'profile', id: entry.id, score: null, item, truncated: false, lineUnit: count(`${itemLine('profile', item)}\n`), chatUnit: 0, content: entry.content };
    });
  }
  if (layer.layer === 'session') {
    const page = await source.list(layer.namespace, {
      layer: 'session',
      orderBy: 'updatedAt',
      order: 'desc',
      limit: pool,
      ...validity,
      ...(opts.sessionId !== undefined ? { metadata: { session: opts.sessionId } } : {}),
    });
    const turns = [...page.items].sort((a, b) => b.updatedAt - a.updatedAt || seq(b) - seq(a));
    return turns.map((record) => make(record, null));
  }
  const query = opts.query ?? fill.conversation();
  if (query === undefined) {
    // Nothing to be relevant to: the layer's latest memories, as a context for a fresh start.
    const page = await source.list(layer.namespace, { layer: layer.layer, orderBy: 'updatedAt', order: 'desc', limit: pool, ...validity });
    return page.items.map((record) => make(record, null));
  }
  // Candidates are not accesses; the items kept are counted once the context is final.
  const { hits } = await source.recall(layer.namespace, query, {
    k: pool,
    layers: [layer.layer],
    trackAccess: false,
    ...validity,
    ...(opts.now !== undefined ? { now: opts.now } : {}),
    ...(opts.minRelevance !== undefined ? { minRelevance: opts.minRelevance } : {}),
  });
  return hits.map((hit) => make(hit.record, hit.score));
}

/** The turn number the session helper stores (`metadata.seq`); 0 for other memories. */
function seq(record: MemoryRecord): number {
  const value = record.metadata.seq;
  return typeof value === 'number' ? value : 0;
}

