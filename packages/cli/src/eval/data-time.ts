/** ISO 8601 date-time without a zone offset: the bench data's `ts` form. */
const ZONELESS = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/;

/**
 * The epoch milliseconds of a data timestamp. ISO strings without a zone are read as UTC
 * (`Date.parse` would read them as local time, making results depend on the machine's
 * zone). Returns `undefined` for null or absent values and `NaN` for anything unreadable.
 */
export function parseDataTime(value: unknown): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? value : Number.NaN;
  if (typeof value !== 'string') return Number.NaN;
  const zoneless = ZONELESS.exec(value);
  if (zoneless) return Date.parse(`${zoneless[1]}T${zoneless[2]}Z`);
  // A date alone is UTC already; a string with an offset says its own zone.
  if (/^\d{4}-\d{2}-\d{2}(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2}))?$/.test(value)) return Date.parse(value.replace(' ', 'T'));
  return Number.NaN;
}
