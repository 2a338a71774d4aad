/**
 * Ordered list access without loading a namespace: each record carries, per order field,
 * a multi-entry index of string keys `<ns>\0<tag>\0<16-digit time>\0<id>`, one with an
 * empty tag (the whole namespace) and one per tag. A list page is then one ordered range
 * scan per tag stream, stopped after `limit` matches. Tags never contain NUL, and the
 * namespace key is URI-encoded, so prefixes never collide.
 */
const SEP = '\u0000';
/** Upper bound for a prefix range: above every character a key can hold after the prefix. */
const HIGH = '\uffff';

/** The position part of a sort key: time and id. */
export function position(time: number, id: string): string {
  return `${String(time).padStart(16, '0')}${SEP}${id}`;
}

/** The time and id of a {@link position}. */
export function parsePosition(pos: string): { time: number; id: string } {
  return { time: Number(pos.slice(0, 16)), id: pos.slice(17) };
}

/** The prefix of one stream: the whole namespace (`tag` = '') or one tag in it. */
export function streamPrefix(namespaceKey: string, tag: string): string {
  return `${namespaceKey}${SEP}${tag}${SEP}`;
}

/** Every sort key of a record for one order field. */
export function sortKeys(namespaceKey: string, tags: readonly string[], time: number, id: string): string[] {
  const pos = position(time, id);
  const keys = [streamPrefix(namespaceKey, '') + pos];
  for (const tag of tags) keys.push(streamPrefix(namespaceKey, tag) + pos);
  return keys;
}

/** The range bounds of a stream between two times (`to` exclusive), excluding the position `after`. */
export function streamRange(
  prefix: string,
  from: number,
  to: number,
  order: 'asc' | 'desc',
  after: string | undefined,
): { lower: string; upper: string; includeLower: boolean; includeUpper: boolean } {
  let lower = prefix + (from > 0 ? String(from).padStart(16, '0') : '');
  let upper = prefix + (Number.isFinite(to) ? String(to).padStart(16, '0') : HIGH);
  let includeLower = true;
  let includeUpper = false;
  if (after !== undefined) {
    const cursorKey = prefix + after;
    if (order === 'asc' && cursorKey >= lower) {
      lower = cursorKey;
      includeLower = false;
    }
    if (order === 'desc' && cursorKey <= upper) {
      upper = cursorKey;
      includeUpper = false;
    }
  }
  return { lower, upper, includeLower, includeUpper };
}
