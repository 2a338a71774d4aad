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
 * (`ms`, `s`, `m`, `h`, `d`, `w`) such as `"2d"` or `"1h30m"`. Returns `undefined` when
 * the value is not a positive, finite duration.
 */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase();
  if (!DURATION_PATTERN.test(text)) return undefined;
  let total = 0;
  for (const match of text.matchAll(PART_PATTERN)) total += Number(match[1]) * UNIT_MS[match[2]!]!;
  return total > 0 && Number.isFinite(total) ? Math.round(total) : undefined;
}
