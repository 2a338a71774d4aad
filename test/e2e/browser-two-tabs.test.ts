/**
 * Two tabs (same origin, same profile) on one @zeromem/core database in real Chromium:
 * concurrent writes and forgets lose nothing that was acknowledged, resurrect nothing
 * that was forgotten, deduplicate across tabs, and reach the other tab's `watch()`.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Namespace } from '@zeromem/core';
import { skipBrowserTests, startHarness, uniqueName, type Harness } from './browser.ts';

/** Per tab: 100 single remembers + 10 rememberMany of 10 own memories, and 20 memories both tabs write. */
const OWN_SINGLES = 100;
const OWN_BATCHES = 10;
const BATCH_SIZE = 10;
const OWN = OWN_SINGLES + OWN_BATCHES * BATCH_SIZE; // 200
const SHARED = 20;
/** Own memories with position % 5 === 2 are forgotten by their tab while the writes go on. */
const FORGOTTEN_PER_TAB = OWN / 5; // 40

interface TabReport {
  own: Array<{ content: string; id: string; deduplicated: boolean }>;
  shared: Array<{ content: string; id: string; deduplicated: boolean }>;
  forgotten: string[];
  forgetResults: boolean[];
}

/** Runs one tab's workload: 4 concurrent workers over a shuffled task list, forgets queued as writes resolve. */
function runTab(page: Page, name: string, ns: Namespace, tab: string, seed: number): Promise<TabReport> {
  return page.evaluate(
    async ({ name, ns, tab, seed, OWN_SINGLES, OWN_BATCHES, BATCH_SIZE, SHARED }) => {
      const memory = await window.zeromem.openMemory({ name, actor: `tab-${tab}` });
      let state = seed >>> 0;
      const random = () => {
        state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
        return state / 4294967296;
      };
      const report: TabReport = { own: [], shared: [], forgotten: [], forgetResults: [] };
      type Task = { kind: 'one'; position: number } | { kind: 'many'; first: number } | { kind: 'shared'; k: number } | { kind: 'forget'; id: string };
      const tasks: Task[] = [];
      for (let i = 0; i < OWN_SINGLES; i++) tasks.push({ kind: 'one', position: i });
      for (let b = 0; b < OWN_BATCHES; b++) tasks.push({ kind: 'many', first: OWN_SINGLES + b * BATCH_SIZE });
      for (let k = 0; k < SHARED; k++) tasks.push({ kind: 'shared', k });
      for (let i = tasks.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [tasks[i], tasks[j]] = [tasks[j]!, tasks[i]!];
      }
      const content = (position: number) => `tab ${tab} memory ${position}`;
      const tagsOf = (position: number) => [`tab-${tab}`, position % 2 === 0 ? 'even' : 'odd'];
      const acknowledge = (position: number, id: string, deduplicated: boolean) => {
        report.own.push({ content: content(position), id, deduplicated });
        if (position % 5 === 2) tasks.push({ kind: 'forget', id });
      };
      const worker = async () => {
        for (let task = tasks.shift(); task; task = tasks.shift()) {
          if (task.kind === 'one') {
            const result = await memory.remember({ namespace: ns, content: content(task.position), tags: tagsOf(task.position) });
            acknowledge(task.position, result.id, result.deduplicated);
          } else if (task.kind === 'many') {
            const positions = Array.from({ length: BATCH_SIZE }, (_, k) => task.first + k);
            const { results } = await memory.rememberMany(positions.map((p) => ({ namespace: ns, content: content(p), tags: tagsOf(p) })));
            results.forEach((result, k) => acknowledge(positions[k]!, result.id, result.deduplicated));
          } else if (task.kind === 'shared') {
            const text = `a fact both tabs remember #${task.k}`;
            const result = await memory.remember({ namespace: ns, content: text, tags: ['shared'] });
            report.shared.push({ content: text, id: result.id, deduplicated: result.deduplicated });
          } else {
            const forgotten = await memory.forget(ns, task.id);
            report.forgetResults.push(forgotten);
            if (forgotten) report.forgotten.push(task.id);
          }
        }
      };
      try {
        // A worker may find the queue empty while others still have forgets to enqueue: loop until idle.
        while (tasks.length) await Promise.all([worker(), worker(), worker(), worker()]);
        return report;
      } finally {
        memory.close();
      }
    },
    { name, ns, tab, seed, OWN_SINGLES, OWN_BATCHES, BATCH_SIZE, SHARED },
  );
}

interface TabView {
  listed: Array<{ id: string; content: string }>;
  pages: number;
  count: number;
  evenCount: number;
  sharedCount: number;
  forgottenStillThere: string[];
  audit: Array<{ op: string; actor: string; id: string }>;
}

/** Reads everything back in a tab: the whole namespace by pages of 64, counts, forgotten ids, audit. */
function readTab(page: Page, name: string, ns: Namespace, forgotten: string[]): Promise<TabView> {
  return page.evaluate(
    async ({ name, ns, forgotten }) => {
      const memory = await window.zeromem.openMemory({ name });
      try {
        const listed: Array<{ id: string; content: string }> = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const result = await memory.list(ns, { limit: 64, ...(cursor ? { cursor } : {}) });
          for (const item of result.items) listed.push({ id: item.id, content: item.content });
          cursor = result.nextCursor;
          pages++;
        } while (cursor);
        const forgottenStillThere: string[] = [];
        for (const id of forgotten) if (await memory.get(ns, id)) forgottenStillThere.push(id);
        return {
          listed,
          pages,
          count: await memory.count(ns),
          evenCount: await memory.count(ns, { tags: { all: ['even'] } }),
          sharedCount: await memory.count(ns, { tags: { any: ['shared'] } }),
          forgottenStillThere,
          audit: (await memory.audit(ns, { limit: 10_000 })).map((e) => ({ op: e.op, actor: e.actor, id: e.id })),
        };
      } finally {
        memory.close();
      }
    },
    { name, ns, forgotten },
  );
}

describe.skipIf(skipBrowserTests(import.meta.url))('two tabs on one database (real Chromium IndexedDB)', () => {
  let harness: Harness;
  let tabA: Page;
  let tabB: Page;

  beforeAll(async () => {
    harness = await startHarness();
    // Two pages of one persistent context: same origin, same profile, like two tabs.
    tabA = await harness.newPage();
    tabB = await harness.newPage();
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('keeps every acknowledged write and no forgotten one under concurrent writes from both tabs', async () => {
    const name = uniqueName('two-tabs');
    const ns = { userId: 'u-shared', agentId: 'agent' };
    const [a, b] = await Promise.all([runTab(tabA, name, ns, 'A', 1), runTab(tabB, name, ns, 'B', 2)]);

    for (const report of [a, b]) {
      expect(report.own).toHaveLength(OWN);
      expect(report.own.filter((w) => w.deduplicated)).toEqual([]);
      expect(report.forgetResults).toEqual(Array(FORGOTTEN_PER_TAB).fill(true));
      expect(report.forgotten).toHaveLength(FORGOTTEN_PER_TAB);
      expect(report.shared).toHaveLength(SHARED);
    }
    // Cross-tab dedupe: both tabs got the same id per shared fact, and exactly one of them created it.
    const sharedB = new Map(b.shared.map((s) => [s.content, s]));
    for (const sa of a.shared) {
      const sb = sharedB.get(sa.content)!;
      expect(sb.id).toBe(sa.id);
      expect([sa.deduplicated, sb.deduplicated].sort()).toEqual([false, true]);
    }

    const forgotten = new Set([...a.forgotten, ...b.forgotten]);
    const expected = new Map<string, string>();
    for (const write of [...a.own, ...b.own]) if (!forgotten.has(write.id)) expected.set(write.id, write.content);
    for (const s of a.shared) expected.set(s.id, s.content);
    expect(expected.size).toBe(2 * OWN - 2 * FORGOTTEN_PER_TAB + SHARED); // 340

    const views = await Promise.all([readTab(tabA, name, ns, [...forgotten]), readTab(tabB, name, ns, [...forgotten])]);
    for (const view of views) {
      expect(view.count).toBe(340);
      expect(view.listed).toHaveLength(340);
      expect(view.pages).toBe(6); // 5 full pages of 64 and one of 20
      expect(new Map(view.listed.map((r) => [r.id, r.content]))).toEqual(expected);
      expect(view.forgottenStillThere).toEqual([]);
      // Forgotten positions (% 5 === 2) alternate parity, so 20 of each tab's 40 were even: 2 * (100 - 20).
      expect(view.evenCount).toBe(160);
      expect(view.sharedCount).toBe(SHARED);
      const ops = (op: string, actor: string) => view.audit.filter((e) => e.op === op && e.actor === actor).length;
      const createdSharedByA = a.shared.filter((s) => !s.deduplicated).length;
      expect(ops('remember', 'tab-A')).toBe(OWN + createdSharedByA);
      expect(ops('remember', 'tab-B')).toBe(OWN + SHARED - createdSharedByA);
      expect(ops('forget', 'tab-A')).toBe(FORGOTTEN_PER_TAB);
      expect(ops('forget', 'tab-B')).toBe(FORGOTTEN_PER_TAB);
      expect(view.audit).toHaveLength(2 * OWN + SHARED + 2 * FORGOTTEN_PER_TAB);
      expect(new Set(view.audit.filter((e) => e.op === 'forget').map((e) => e.id))).toEqual(forgotten);
    }
    expect(views[1]).toEqual(views[0]);
    // The tabs really ran at the same time: their transactions interleave in the audit log.
    const actors = views[0]!.audit.map((e) => e.actor);
    const switches = actors.filter((actor, i) => i > 0 && actor !== actors[i - 1]).length;
    expect(switches).toBeGreaterThan(10);
  });

  it("delivers one tab's writes and forgets to another tab's watch()", async () => {
    const name = uniqueName('watch');
    const ns = { userId: 'u-watch', scope: 'inbox' };
    await tabB.evaluate(
      async ({ name, ns }) => {
        const { scratch, openMemory } = window.zeromem;
        const memory = await openMemory({ name });
        const seen: string[][] = [];
        const errors: string[] = [];
        scratch.watchSeen = seen;
        scratch.watchErrors = errors;
        scratch.watchMemory = memory;
        scratch.stopWatch = memory.watch(ns, { limit: 10 }, {
          next: (page) => seen.push(page.items.map((item) => `${item.id}|${item.content}`)),
          error: (err) => errors.push(`${err.code}: ${err.message}`),
        });
      },
      { name, ns },
    );
    const seenInB = () => tabB.evaluate(() => window.zeromem.scratch.watchSeen as string[][]);
    const waitInB = (expected: string[]) =>
      tabB.waitForFunction((expected) => {
        const seen = window.zeromem.scratch.watchSeen as string[][];
        return seen.some((page) => JSON.stringify(page) === JSON.stringify(expected));
      }, expected, { timeout: 10_000 });

    await waitInB([]); // the initial, empty page

    const first = await tabA.evaluate(
      async ({ name, ns }) => {
        const memory = await window.zeromem.openMemory({ name });
        try {
          return (await memory.remember({ namespace: ns, content: 'written in tab A' })).id;
        } finally {
          memory.close();
        }
      },
      { name, ns },
    );
    await waitInB([`${first}|written in tab A`]);

    const batch = await tabA.evaluate(
      async ({ name, ns }) => {
        const memory = await window.zeromem.openMemory({ name });
        try {
          const { results } = await memory.rememberMany([1, 2, 3].map((n) => ({ namespace: ns, content: `batch ${n} from tab A` })));
          await memory.forget(ns, (await memory.list(ns, { order: 'asc', limit: 1 })).items[0]!.id);
          return results.map((r) => r.id);
        } finally {
          memory.close();
        }
      },
      { name, ns },
    );
    // Newest first; the first record was forgotten by tab A after the batch landed.
    await waitInB([`${batch[2]}|batch 3 from tab A`, `${batch[1]}|batch 2 from tab A`, `${batch[0]}|batch 1 from tab A`]);

    // A write to another namespace from tab A never shows up in B's watched list.
    await tabA.evaluate(
      async ({ name }) => {
        const memory = await window.zeromem.openMemory({ name });
        try {
          await memory.remember({ namespace: { userId: 'someone-else' }, content: 'not for B' });
        } finally {
          memory.close();
        }
      },
      { name },
    );

    const seen = await seenInB();
    expect(seen[0]).toEqual([]);
    expect(seen.at(-1)).toEqual([`${batch[2]}|batch 3 from tab A`, `${batch[1]}|batch 2 from tab A`, `${batch[0]}|batch 1 from tab A`]);
    expect(seen.flat().some((entry) => entry.includes('not for B'))).toBe(false);
    expect(await tabB.evaluate(() => window.zeromem.scratch.watchErrors)).toEqual([]);

    await tabB.evaluate(() => {
      (window.zeromem.scratch.stopWatch as () => void)();
      (window.zeromem.scratch.watchMemory as { close(): void }).close();
    });
  });
});
