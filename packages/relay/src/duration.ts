const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** Parses `90`, `45s`, `30m`, `12h` or `7d` into whole seconds; `undefined` if it is none of these. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,9})([smhd]?)$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNITS[match[2] || 's']!;
}
