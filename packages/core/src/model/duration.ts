const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const DURATION_PATTERN = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d|w))+$/;
const PART_PATTERN = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g;

/**
 * Parses a duration: milliseconds as a number, or a string of number-unit parts
 * (`ms`, `s`, `m`, `h`, `d`, `w`) such as `"2d"` or `"1h30m"`. Returns whole milliseconds
 * (rounded, at least 1: stored times are whole milliseconds), or `undefined` when the value
 * is not a positive, finite duration.
 */
export function parseDuration(value: unknown): number | undefined {
  let total: number;
  if (typeof value === 'number') total = value;
  else if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (!DURATION_PATTERN.test(text)) return undefined;
    total = 0;
    for (const match of text.matchAll(PART_PATTERN)) total += Number(match[1]) * UNIT_MS[match[2]!]!;
  } else return undefined;
  return total > 0 && Number.isFinite(total) ? Math.max(1, Math.round(total)) : undefined;
}
