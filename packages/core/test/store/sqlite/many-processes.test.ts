import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fcSeed } from '../../helpers.ts';
import { mulberry32 } from '../../../../../test/kit/mulberry32.ts';
import { startServingProcess, type ServingProcess } from './run-store-process.ts';

// Four Node processes on one store file, each a memory of its own (store-process.ts serve):
// what one acknowledged, the others read at once; a SIGKILLed one loses nothing it
// acknowledged and stops nobody else.

const dirs: string[] = [];
const running: ServingProcess[] = [];
afterEach(async () => {
  for (const process of running.splice(0)) {
    process.child.stdin!.end();
    process.child.kill('SIGKILL');
    await process.exited;
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function fourProcesses(): Promise<{ dir: string; processes: ServingProcess[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-four-'));
  dirs.push(dir);
  const processes = await Promise.all([0, 1, 2, 3].map(() => startServingProcess(dir, 'device')));
  running.push(...processes);
  return { dir, processes };
}

async function ok<T>(process: ServingProcess, command: Record<string, unknown>): Promise<T> {
  const answer = await process.send(command);
  if (answer.error !== undefined) throw new Error(`${JSON.stringify(command)} failed: ${answer.error} ${answer.message}`);
  return answer.ok as T;
}

// Each test starts four Node processes (tsx compiles on start): generous on a loaded machine.
describe('four processes on one store', { timeout: 180_000 }, () => {
  it('interleaved remembers, updates and forgets of four processes: every process reads the model after every round (seeded)', async () => {
    const seed = fcSeed('four processes, one store');
    const next = mulberry32(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const { processes } = await fourProcesses();
    const model = new Map<string, string>();
    let written = 0;
    for (let round = 0; round < 12; round++) {
      // Each process gets up to three operations, run at once with the others'; no two touch the same record.
      const taken = new Set<string>();
      const work = processes.map(async (process, p) => {
        for (let n = Math.floor(next() * 4); n > 0; n--) {
          const live = [...model.keys()].filter((id) => !taken.has(id));
          const roll = next();
          if (roll < 0.5 || live.length === 0) {
            const content = `Round ${round} note ${written++} from process ${p} about ${pick(['tea', 'trains', 'piano', 'Berlin', 'invoices'])}`;
            const id = await ok<string>(process, { op: 'remember', content });
            model.set(id, content);
            taken.add(id);
          } else if (roll < 0.8) {
            const id = pick(live);
            taken.add(id);
            const content = `${model.get(id)} (updated by process ${p} in round ${round})`;
            expect(await ok<string>(process, { op: 'update', id, content })).toBe(content);
            model.set(id, content);
          } else {
            const id = pick(live);
            taken.add(id);
            expect(await ok<boolean>(process, { op: 'forget', id })).toBe(true);
            model.delete(id);
          }
        }
      });
      await Promise.all(work);
      const expected = [...model.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
      for (const process of processes) expect(await ok(process, { op: 'all' }), `seed ${seed}, round ${round}`).toEqual(expected);
      if (model.size > 0) {
        const [id, content] = pick(expected);
        const reader = pick(processes);
        expect(await ok(reader, { op: 'get', id }), `seed ${seed}`).toBe(content);
        expect(await ok<string[]>(reader, { op: 'recall', query: content }), `seed ${seed}: recall in another process`).toContain(id);
      }
    }
  });

  it('a process SIGKILLed while writing loses nothing it acknowledged, brings back nothing forgotten, and the others keep working (seeded)', async () => {
    const seed = fcSeed('SIGKILL one of four');
    const next = mulberry32(seed);
    const { processes } = await fourProcesses();
    const victim = Math.floor(next() * 4);
    /** Per process: its records as acknowledged (content, or null once forgotten), and the operation it had in flight. */
    const acknowledged = processes.map(() => new Map<string, string | null>());
    const inFlight: Array<{ id?: string; content: string | null } | undefined> = processes.map(() => undefined);
    let killed = false;
    const writer = async (p: number, steps: number) => {
      const process = processes[p]!;
      for (let i = 0; i < steps; i++) {
        const mine = [...acknowledged[p]!.entries()].filter(([, content]) => content !== null).map(([id]) => id);
        const roll = next();
        let answer;
        if (roll < 0.6 || mine.length === 0) {
          const content = `Process ${p} step ${i}`;
          inFlight[p] = { content };
          answer = await process.send({ op: 'remember', content });
          if (answer.error === undefined) acknowledged[p]!.set(answer.ok as string, content);
        } else if (roll < 0.8) {
          const id = mine[Math.floor(next() * mine.length)]!;
          const content = `Process ${p} step ${i} update`;
          inFlight[p] = { id, content };
          answer = await process.send({ op: 'update', id, content });
          if (answer.error === undefined) acknowledged[p]!.set(id, content);
        } else {
          const id = mine[Math.floor(next() * mine.length)]!;
          inFlight[p] = { id, content: null };
          answer = await process.send({ op: 'forget', id });
          if (answer.error === undefined) acknowledged[p]!.set(id, null);
        }
        if (answer.error !== undefined) throw new Error(`process ${p}: ${answer.error} ${answer.message}`);
        inFlight[p] = undefined;
      }
    };
    const killAfter = 10 + Math.floor(next() * 20);
    const victimWork = (async () => {
      try {
        await writer(victim, 1_000);
      } catch (err) {
        if (!killed) throw err; // only the kill may cut its work off
      }
    })();
    const others = processes.map((_, p) => (p === victim ? Promise.resolve() : writer(p, 40)));
    while (acknowledged[victim]!.size < killAfter) await new Promise((resolve) => setTimeout(resolve, 5));
    killed = true;
    processes[victim]!.child.kill('SIGKILL');
    await victimWork;
    expect((await processes[victim]!.exited).signal).toBe('SIGKILL');
    await Promise.all(others);
    // The survivors keep working after the kill, and every one reads the same store.
    const survivors = processes.filter((_, p) => p !== victim);
    const after = await ok<string>(survivors[0]!, { op: 'remember', content: 'Written after the kill' });
    for (const survivor of survivors) {
      const all = new Map(await ok<Array<[string, string]>>(survivor, { op: 'all' }));
      expect(all.get(after)).toBe('Written after the kill');
      for (const [p, records] of acknowledged.entries()) {
        for (const [id, content] of records) {
          const pending = p === victim ? inFlight[p] : undefined;
          if (pending?.id === id) {
            // The operation in flight at the kill may have been stored, or not.
            expect([content, pending.content], `seed ${seed}: ${id}`).toContain(all.get(id) ?? null);
          } else expect(all.get(id) ?? null, `seed ${seed}: process ${p}'s ${id}`).toBe(content);
        }
      }
      const known = new Set([after, ...acknowledged.flatMap((records) => [...records.keys()])]);
      const unknown = [...all.keys()].filter((id) => !known.has(id));
      // At most the victim's remember in flight is there unacknowledged.
      expect(unknown.length, `seed ${seed}`).toBeLessThanOrEqual(inFlight[victim] && inFlight[victim]!.id === undefined ? 1 : 0);
    }
  });
});
