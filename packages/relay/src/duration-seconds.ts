const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/**
 * Parses `90`, `45s`, `30m`, `12h` or `7d` into whole **seconds** (the unit of a token's
 * `ttlSeconds` and JWT `exp`); `undefined` if it is none of these.
 *
 * Not core's `model/duration.ts` (which parses into milliseconds, with more units): the
 * relay does not depend on `@zeromem/core` at all, so it can be deployed alone on a server
 * without core and its dependencies, and cannot import that parser.
 */
export function parseDurationSeconds(text: string): number | undefined {
  const match = /^(\d{1,9})([smhd]?)$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNITS[match[2] || 's']!;
}
