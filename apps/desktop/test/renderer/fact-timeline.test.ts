import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { factTimeline, type FactVersion } from '../../src/renderer/components/fact-timeline.tsx';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("a fact's time line", () => {
  it('draws the phone version up to the day the e-mail one begins, and the e-mail one up to now', () => {
    const now = Date.UTC(2026, 2, 19, 9);
    const phone: FactVersion = { id: 'p', content: 'Prefers phone calls', createdAt: now - 2 * DAY, validFrom: now - 2 * DAY, validUntil: now - DAY, closedBy: 'e' };
    const email: FactVersion = { id: 'e', content: 'Prefers e-mail', createdAt: now - DAY, validFrom: now - DAY, validUntil: null, closedBy: null };
    const { start, end, rows } = factTimeline([email, phone], now);
    expect([start, end]).toEqual([now - 2 * DAY, now]);
    expect(rows.map(({ id, left, width }) => [id, left, width])).toEqual([
      ['p', 0, 50],
      ['e', 50, 50],
    ]);
  });

  it('a version written a moment ago still gets a bar; no versions, no rows', () => {
    const now = Date.UTC(2026, 2, 19, 9);
    const { rows } = factTimeline([{ id: 'a', content: 'x', createdAt: now, validFrom: now, validUntil: null, closedBy: null }], now);
    expect(rows[0]).toMatchObject({ left: 0, width: 100 });
    expect(factTimeline([], now).rows).toEqual([]);
  });

  it('for any versions that follow each other, the bars are in order, inside the axis, and do not overlap (seeded property)', () => {
    const seed = Date.now() % 2 ** 31;
    console.log(`fact-timeline seed ${seed}`);
    fc.assert(
      fc.property(
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 30 * DAY }), cut: fc.option(fc.integer({ min: 1, max: 30 * DAY })) }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 60 * DAY }),
        (steps, after) => {
          // Versions as core derives them: each holds until the next one's start, or the end its writer stated if earlier.
          let at = Date.UTC(2026, 0, 1);
          const starts = steps.map(({ gap }) => (at += gap + 1));
          const versions: FactVersion[] = starts.map((from, i) => {
            const next = starts[i + 1];
            const stated = steps[i]!.cut === null ? null : from + steps[i]!.cut!;
            const until = next !== undefined && (stated === null || next <= stated) ? next : stated;
            return { id: `v${i}`, content: `version ${i}`, createdAt: from, validFrom: from, validUntil: until, closedBy: until === next ? `v${i + 1}` : null };
          });
          const now = starts.at(-1)! + after;
          const { rows } = factTimeline([...versions].reverse(), now);
          expect(rows.map((row) => row.id)).toEqual(versions.map((v) => v.id));
          for (const [i, row] of rows.entries()) {
            expect(row.left).toBeGreaterThanOrEqual(0);
            expect(row.left + row.width).toBeLessThanOrEqual(100 + 1e-9);
            const next = rows[i + 1];
            if (next) expect(row.left + row.width).toBeLessThanOrEqual(next.left + 1e-9);
          }
        },
      ),
      { seed },
    );
  });
});
