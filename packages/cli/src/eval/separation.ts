import type { RelevanceLine } from './rank-queries.ts';

/**
 * How well relevance tells a query's own namespace from a foreign one: the chance that the
 * best relevance of a query asked where its answer is stands above the best relevance of a
 * query asked where it cannot be (AUC, Mann-Whitney: every own answer against every foreign
 * one, ties half). 1: a floor could separate them all; 0.5: no better than chance. An
 * answer with no hits counts as relevance 0. Undefined without lines; the caller passes only
 * runs whose queries were asked in a foreign namespace.
 */
export function separation(lines: readonly RelevanceLine[]): number | undefined {
  if (!lines.length) return undefined;
  const own = lines.map((line) => best(line.own.map((hit) => hit[1])));
  const foreign = lines.map((line) => best(line.foreign.map((hit) => hit[0]))).sort((a, b) => a - b);
  let wins = 0;
  for (const value of own) wins += below(foreign, value) + (below(foreign, value, true) - below(foreign, value)) / 2;
  return wins / (own.length * foreign.length);
}

function best(values: readonly number[]): number {
  return values.reduce((max, value) => Math.max(max, value), 0);
}

/** How many of the sorted values are below `value` (or at most `value`, with `orEqual`). */
function below(sorted: readonly number[], value: number, orEqual = false): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value || (orEqual && sorted[mid] === value)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
