import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openStoreAt, openTestMemory, runEngine, sqliteFileOf, type Engine } from './memory.ts';

describe('openTestMemory on either engine', () => {
  for (const engine of ['dexie', 'sqlite'] as const satisfies readonly Engine[]) {
    it(`${engine}: a memory on a fresh place, opened again at that place, its rows read as the port hands them out`, async () => {
      const first = await openTestMemory({ engine });
      expect(first.place.engine).toBe(engine);
      const file = sqliteFileOf(first.place, first.name);
      expect(file !== undefined && existsSync(file)).toBe(engine === 'sqlite');
      const { id } = await first.memory.remember({ namespace: { userId: 'u1' }, content: 'Prefers phone calls' });
      await first.memory.close();

      const again = await openTestMemory({ place: first.place, name: first.name, clock: first.clock });
      expect((await again.memory.get({ userId: 'u1' }, id))?.content).toBe('Prefers phone calls');
      expect(((await again.stores()).records as Array<{ id: string }>).map((r) => r.id)).toEqual([id]);
      expect(await again.dump()).toContain('Prefers phone calls');
      await again.memory.close();

      const port = await openStoreAt(first.place, first.name);
      expect(await port.read((tx) => tx.countRecords())).toBe(1);
      await port.close();
    });
  }

  it("takes the run's engine when none is named: sqlite with ZEROMEM_TEST_STORE=disk, else dexie", async () => {
    const t = await openTestMemory();
    expect(t.place.engine).toBe(runEngine());
    expect(runEngine()).toBe(process.env.ZEROMEM_TEST_STORE === 'disk' ? 'sqlite' : 'dexie');
    await t.memory.close();
  });
});
