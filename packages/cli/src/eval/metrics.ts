/**
 * Retrieval metrics exactly as bench-data/README.md defines them, macro-averaged over
 * queries with at least one gold id. Every function takes the ranked ids (best first) and
 * the gold ids; a ranked id repeated later in the list counts once, at its first rank.
 */

/** The figures reported for a set of queries. */
export interface MetricValues {
  'R@5': number;
  'R@10': number;
  'Hit@10': number;
  'All@10': number;
  'NDCG@10': number;
  MRR: number;
}

/** Names of {@link MetricValues}, in table order. */
export const METRIC_NAMES: ReadonlyArray<keyof MetricValues> = ['R@5', 'R@10', 'Hit@10', 'All@10', 'NDCG@10', 'MRR'];

/** The distinct ids among the first `k` ranked ids. */
function topK(ranked: readonly string[], k: number): Set<string> {
  return new Set(ranked.slice(0, k));
}

function goldSet(gold: readonly string[]): Set<string> {
  return new Set(gold);
}

function found(ranked: readonly string[], gold: readonly string[], k: number): number {
  const top = topK(ranked, k);
  let n = 0;
  for (const id of goldSet(gold)) if (top.has(id)) n++;
  return n;
}

/** |gold ∩ top-k| / |gold|. */
export function recallAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  const size = goldSet(gold).size;
  return size === 0 ? 0 : found(ranked, gold, k) / size;
}

/** 1 if any gold id is in the top k. */
export function hitAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  return found(ranked, gold, k) > 0 ? 1 : 0;
}

/** 1 if every gold id is in the top k. */
export function allAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  const size = goldSet(gold).size;
  return size > 0 && found(ranked, gold, k) === size ? 1 : 0;
}

/** NDCG@k with binary relevance: DCG = Σ rel_i / log2(i + 2) (i from 0), ideal = min(|gold|, k) hits. */
export function ndcgAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  const relevant = goldSet(gold);
  if (relevant.size === 0) return 0;
  const seen = new Set<string>();
  let dcg = 0;
  for (let i = 0; i < Math.min(k, ranked.length); i++) {
    const id = ranked[i]!;
    if (relevant.has(id) && !seen.has(id)) dcg += 1 / Math.log2(i + 2);
    seen.add(id);
  }
  let ideal = 0;
  for (let i = 0; i < Math.min(relevant.size, k); i++) ideal += 1 / Math.log2(i + 2);
  return dcg / ideal;
}

/** 1 / rank of the first gold id anywhere in the list; 0 if none is returned. */
export function reciprocalRank(ranked: readonly string[], gold: readonly string[]): number {
  const relevant = goldSet(gold);
  for (let i = 0; i < ranked.length; i++) if (relevant.has(ranked[i]!)) return 1 / (i + 1);
  return 0;
}

/** Every metric of one query. */
export function queryMetrics(ranked: readonly string[], gold: readonly string[]): MetricValues {
  return {
    'R@5': recallAt(ranked, gold, 5),
    'R@10': recallAt(ranked, gold, 10),
    'Hit@10': hitAt(ranked, gold, 10),
    'All@10': allAt(ranked, gold, 10),
    'NDCG@10': ndcgAt(ranked, gold, 10),
    MRR: reciprocalRank(ranked, gold),
  };
}

/** A query as the scorer sees it: its gold ids and category. */
export interface GoldQuery {
  qid: string;
  gold: string[];
  category: string;
  /** Ids of earlier values of the fact asked about (`stale_ids`), which must never rank above the current one. */
  stale?: string[];
}

/** Over the queries with `stale_ids` (a fact that changed): is the current value first, is a stale one above it. */
export interface FactChangeMetrics {
  queries: number;
  /** Share of them with a gold id ranked first. */
  currentFirst: number;
  /** Share of them with a stale id ranked above every gold id (or returned when no gold id is). */
  staleAbove: number;
}

/** Macro averages over a group of queries. */
export interface GroupMetrics extends MetricValues {
  /** Queries averaged (those with at least one gold id). */
  n: number;
}

/** The scored run: overall and per category (categories sorted by name). */
export interface RunMetrics {
  overall: GroupMetrics;
  perCategory: Record<string, GroupMetrics>;
  /** Queries left out of every average because they have no gold id. */
  withoutGold: number;
  /** Scored queries that had no line in the run (scored as an empty ranking). */
  missingFromRun: string[];
  /** Only when some query has `stale_ids`. */
  factChanges?: FactChangeMetrics;
}

/** 1 when a stale id comes before the first gold id in the ranking (or one is returned and no gold id is). */
export function staleAbove(ranked: readonly string[], gold: readonly string[], stale: readonly string[]): number {
  const first = ranked.findIndex((id) => gold.includes(id));
  const firstStale = ranked.findIndex((id) => stale.includes(id));
  return firstStale !== -1 && (first === -1 || firstStale < first) ? 1 : 0;
}

function average(rows: MetricValues[]): GroupMetrics {
  const out = { n: rows.length } as GroupMetrics;
  for (const name of METRIC_NAMES) out[name] = rows.length ? rows.reduce((sum, row) => sum + row[name], 0) / rows.length : 0;
  return out;
}

/** Scores a run (qid -> ranked ids) against gold queries. */
export function scoreRun(queries: readonly GoldQuery[], run: ReadonlyMap<string, readonly string[]>): RunMetrics {
  const all: MetricValues[] = [];
  const byCategory = new Map<string, MetricValues[]>();
  const missingFromRun: string[] = [];
  let withoutGold = 0;
  for (const query of queries) {
    if (new Set(query.gold).size === 0) {
      withoutGold++;
      continue;
    }
    const ranked = run.get(query.qid);
    if (!ranked) missingFromRun.push(query.qid);
    const values = queryMetrics(ranked ?? [], query.gold);
    all.push(values);
    const group = byCategory.get(query.category) ?? [];
    group.push(values);
    byCategory.set(query.category, group);
  }
  const perCategory: Record<string, GroupMetrics> = {};
  for (const category of [...byCategory.keys()].sort()) perCategory[category] = average(byCategory.get(category)!);
  const changed = queries.filter((query) => query.stale?.length && new Set(query.gold).size > 0);
  const factChanges = changed.length
    ? {
        queries: changed.length,
        currentFirst: changed.filter((q) => q.gold.includes(run.get(q.qid)?.[0] ?? '')).length / changed.length,
        staleAbove: changed.reduce((sum, q) => sum + staleAbove(run.get(q.qid) ?? [], q.gold, q.stale!), 0) / changed.length,
      }
    : undefined;
  return { overall: average(all), perCategory, withoutGold, missingFromRun, ...(factChanges ? { factChanges } : {}) };
}

/** The metrics as a Markdown table: one row for all queries, then one per category. */
export function metricsTable(metrics: RunMetrics): string {
  const header = ['queries', 'n', ...METRIC_NAMES];
  const row = (label: string, m: GroupMetrics) => [label, String(m.n), ...METRIC_NAMES.map((name) => m[name].toFixed(3))];
  const rows = [row('all', metrics.overall), ...Object.entries(metrics.perCategory).map(([category, m]) => row(category, m))];
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const table = [line(header), line(header.map((_, i) => (i < 1 ? '---' : '---:'))), ...rows.map(line)].join('\n');
  const changes = metrics.factChanges;
  if (!changes) return table;
  return `${table}\n\nfacts that changed (${changes.queries} queries with stale_ids): current value first ${changes.currentFirst.toFixed(3)}, a stale value above it ${changes.staleAbove.toFixed(3)}`;
}
