/**
 * Summary helpers of the write benchmarks (write-suite.ts, behind write-chromium.ts and write-node.ts):
 * nearest-rank percentiles of latency samples, the per-field median over runs, and the
 * Markdown table that shows the median next to every run.
 */

/** Latency percentiles of one set of samples (ms). */
export interface Latency {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
  n: number;
}

/** Records per second of one bulk workload, and the time its write calls took. */
export interface Throughput {
  recordsPerSecond: number;
  totalMs: number;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Throws unless `values` holds at least one value and all are finite numbers: a column a
 * benchmark lost (no samples, a NaN) fails the run instead of printing `NaN`.
 */
function checkFinite(values: number[], what: string): void {
  if (values.length === 0) throw new Error(`${what}: no ${what === 'summarize' ? 'samples' : 'values'}, so the column would print NaN; the benchmark lost what it measures`);
  const bad = values.find((value) => typeof value !== 'number' || !Number.isFinite(value));
  if (bad !== undefined) throw new Error(`${what}: ${String(bad)} is not a finite number; the benchmark lost what it measures`);
}

/** Nearest-rank percentiles. Throws for no samples or a non-finite one. */
export function summarize(samples: number[]): Latency {
  checkFinite(samples, 'summarize');
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
  return {
    p50: round3(at(50)),
    p95: round3(at(95)),
    p99: round3(at(99)),
    mean: round3(sorted.reduce((a, b) => a + b, 0) / sorted.length),
    max: round3(sorted[sorted.length - 1]!),
    n: sorted.length,
  };
}

/** `a / b`, to two decimals. */
export const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/** Rounded records/s and total ms of a bulk result. */
export const throughput = (r: { recordsPerSecond: number; totalMs: number }): Throughput => ({
  recordsPerSecond: Math.round(r.recordsPerSecond),
  totalMs: Math.round(r.totalMs),
});

/** Median of numbers (mean of the middle two for an even count). Throws for no values or a non-finite one. */
export function median(values: number[]): number {
  checkFinite(values, 'median');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const m = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return round3(m);
}

/** The per-field median over runs of a structure of numbers; runs that lack a field are left out. */
export function medianOf<T>(all: T[]): T {
  const items = all.filter((item) => item !== undefined);
  const first = items[0] as unknown;
  if (first === undefined) return undefined as T;
  if (typeof first === 'number') return median(items as number[]) as T;
  if (typeof first !== 'object' || first === null) return first as T;
  const keys = new Set(items.flatMap((item) => Object.keys(item as object)));
  const out: Record<string, unknown> = Array.isArray(first) ? ([] as unknown as Record<string, unknown>) : {};
  for (const key of keys) out[key] = medianOf(items.map((item) => (item as Record<string, unknown>)[key]));
  return out as T;
}

/** One table row: its label and how to read its cell from a run (or from the median). */
export type Row<S> = [label: string, get: (summary: S) => number | string | undefined];

/** A Markdown table: one row per measurement, the median column, then one column per run. */
export function markdownTable<S, R extends S & { run: number; order: string }>(rows: Array<Row<S>>, med: S, runs: R[]): string {
  const header = `| Measurement | median | ${runs.map((r) => `run ${r.run} (${r.order})`).join(' | ')} |`;
  const rule = `|---|---|${runs.map(() => '---|').join('')}`;
  const cell = (value: number | string | undefined) => (value === undefined ? 'not run' : String(value));
  const body = rows.map(([label, get]) => `| ${label} | ${cell(get(med))} | ${runs.map((r) => cell(get(r))).join(' | ')} |`);
  return [header, rule, ...body].join('\n');
}
