import { describe, expect, it } from 'vitest';
import { EXPORT_FORMAT, EXPORT_VERSION, MAX_REPORTED_LINES, isZeromemError } from '../src/index.ts';
import { openTestMemory } from './helpers.ts';

/**
 * An import of many bad lines (issue 29 item 3): a valid header, then one-byte garbage
 * lines. 2 MB of them made an error of 133 MB (every line's issue kept) and blocked the
 * event loop for the whole parse; through the service a 15 MB body ran out of heap. The
 * report is bounded (the first {@link MAX_REPORTED_LINES} lines with their numbers, then
 * counts) and the parse yields to other work between chunks.
 */
describe('importing a file of bad lines', () => {
  const LINES = 100_000;
  const header = (records: number) => JSON.stringify({ format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt: 0, scope: { userId: 'u1' }, records, vectors: null });
  const garbage = `${header(LINES)}\n${'x\n'.repeat(LINES)}`;
  /** Enough lines (2 MB) that a parse without turns holds the event loop well past 100 ms. */
  const MANY = 1_000_000;
  const manyGarbage = `${header(MANY)}\n${'x\n'.repeat(MANY)}`;

  it('reports the first lines by number and counts the rest, in a bounded answer; skipInvalid or not', { timeout: 60_000 }, async () => {
    const { memory } = await openTestMemory();
    try {
      const result = await memory.importJsonl(garbage, { skipInvalid: true });
      expect(result.imported).toBe(0);
      expect(result.failed).toBe(LINES);
      expect(result.failures).toHaveLength(MAX_REPORTED_LINES);
      expect(result.failures.map((f) => f.line)).toEqual(Array.from({ length: MAX_REPORTED_LINES }, (_, i) => i + 2));
      expect(result.failures[0]!.issues[0]!.message).toMatch(/not valid JSON/);
      expect(JSON.stringify(result).length).toBeLessThan(64 * 1024);

      let error: unknown;
      try {
        await memory.importJsonl(garbage);
      } catch (err) {
        error = err;
      }
      expect(isZeromemError(error) && error.code).toBe('INVALID_INPUT');
      if (!isZeromemError(error)) return;
      expect(error.message).toContain(`${LINES} lines, first at line 2`);
      expect(error.details.lines).toHaveLength(MAX_REPORTED_LINES);
      expect(error.details.failedLines).toBe(LINES);
      expect(JSON.stringify(error.details).length).toBeLessThan(64 * 1024);
    } finally {
      await memory.close();
    }
  });

  it('the first lines reported are the first in the file, whatever stage found them (a bad line late, a truncated header)', async () => {
    const { memory } = await openTestMemory();
    try {
      const lines = [header(LINES + 1), ...Array.from({ length: LINES }, () => 'x')];
      const result = await memory.importJsonl(lines, { skipInvalid: true });
      expect(result.failed).toBe(LINES + 1); // every garbage line, and line 1: the header announces one more line than there is
      expect(result.failures[0]).toMatchObject({ line: 1, issues: [{ path: 'records' }] });
      expect(result.failures.at(-1)!.line).toBe(MAX_REPORTED_LINES);
    } finally {
      await memory.close();
    }
  });

  it('gives other work turns while it reads (timers fire during the import)', { timeout: 60_000 }, async () => {
    const { memory } = await openTestMemory();
    try {
      // The longest time a timer waited during the import: the parse yields every ~10 ms, where
      // a parse without a turn holds the event loop for all of it. Bounded relative to the
      // import's own time (a quarter of it, or 100 ms when it is quicker than that: then there is
      // nothing to prove), so neither a fast nor a loaded machine decides; a count of ticks did.
      const started = performance.now();
      let longestWait = 0;
      let last = performance.now();
      let running = true;
      const tick = () => {
        const now = performance.now();
        longestWait = Math.max(longestWait, now - last);
        last = now;
        if (running) setTimeout(tick, 0);
      };
      setTimeout(tick, 0);
      const result = await memory.importJsonl(manyGarbage, { skipInvalid: true });
      running = false;
      const ended = performance.now();
      longestWait = Math.max(longestWait, ended - last);
      expect(longestWait).toBeLessThan(Math.max(100, (ended - started) / 4));
      expect(result.failed).toBe(MANY);
    } finally {
      await memory.close();
    }
  });
});
