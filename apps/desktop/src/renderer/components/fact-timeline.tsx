/**
 * A keyed fact's versions on one time line: a row per version, oldest first, each with its
 * text, the time it held (from its `validFrom` until its `validUntil`, or "now") and a bar
 * on an axis shared by all rows, from the first version's start to now. A closed version's
 * bar ends where the version that replaced it begins.
 */

/** What the time line reads of one version (fields of core's MemoryRecord). */
export interface FactVersion {
  id: string;
  content: string;
  createdAt: number;
  validFrom: number | null;
  validUntil: number | null;
  closedBy: string | null;
}

/** One version's row: where its bar sits on the axis, in percent of the axis. */
export interface TimelineRow {
  id: string;
  content: string;
  from: number;
  /** null: it holds (the bar reaches the axis end). */
  until: number | null;
  closedBy: string | null;
  left: number;
  width: number;
}

/** The axis (from the first version's start to now, or to the latest time a version names) and the rows on it. */
export interface Timeline {
  start: number;
  end: number;
  rows: TimelineRow[];
}

/** Shortest axis: one hour, so a fact set a moment ago still gets a visible bar. */
const MIN_SPAN = 3_600_000;

/** The rows, oldest first (by start, then id, as core orders versions), on an axis that holds them all and `now`. */
export function factTimeline(versions: readonly FactVersion[], now: number): Timeline {
  const spans = versions
    .map((version) => ({ version, from: version.validFrom ?? version.createdAt }))
    .sort((a, b) => a.from - b.from || (a.version.id < b.version.id ? -1 : a.version.id > b.version.id ? 1 : 0));
  if (spans.length === 0) return { start: now, end: now + MIN_SPAN, rows: [] };
  const start = spans[0]!.from;
  const latest = Math.max(now, ...spans.map(({ from, version }) => Math.max(from, version.validUntil ?? from)));
  const end = Math.max(latest, start + MIN_SPAN);
  const at = (time: number) => ((time - start) / (end - start)) * 100;
  return {
    start,
    end,
    rows: spans.map(({ version, from }) => {
      const left = at(from);
      return { id: version.id, content: version.content, from, until: version.validUntil, closedBy: version.closedBy, left, width: Math.max(0, at(version.validUntil ?? end) - left) };
    }),
  };
}

function formatTime(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** The time line of one key. */
export function FactTimeline({ factKey, versions, now }: { factKey: string; versions: readonly FactVersion[]; now: number }) {
  const { start, end, rows } = factTimeline(versions, now);
  return (
    <figure class="fact-timeline" data-key={factKey}>
      <figcaption>
        <code>{factKey}</code> <span class="muted">{rows.length === 1 ? '1 version' : `${rows.length} versions`}</span>
      </figcaption>
      <ol class="versions" aria-label={`Versions of ${factKey}, oldest first`}>
        {rows.map((row) => (
          <li key={row.id} class={row.until === null ? 'version current' : 'version closed'} data-id={row.id}>
            <p class="version-text">
              {row.content}{' '}
              <span class="muted">
                {formatTime(row.from)} – {row.until === null ? 'now' : formatTime(row.until)}
                {row.until === null ? ' (current)' : row.closedBy ? ' (replaced)' : ' (ended)'}
              </span>
            </p>
            <div class="version-track" aria-hidden="true">
              <span class="version-bar" style={{ left: `${row.left}%`, width: `${row.width}%` }} />
            </div>
          </li>
        ))}
      </ol>
      <p class="timeline-axis muted" aria-hidden="true">
        <span>{formatTime(start)}</span>
        <span>{end > now ? formatTime(end) : 'now'}</span>
      </p>
    </figure>
  );
}
