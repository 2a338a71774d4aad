/**
 * Group commit across rooms: the appends of many rooms made in one turn share one durable
 * write (one PostgreSQL transaction, one SQLite transaction), each room's updates numbered
 * in order; a room whose rows storage refuses fails alone; storage that cannot be reached
 * fails exactly the appends of the write.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresStore } from '../src/storage/postgres-store.ts';
import type { RoomStorage } from '../src/storage/room-storage.ts';
import { SharedCommit } from '../src/storage/shared-commit.ts';
import { SqliteStore } from '../src/storage/sqlite-store.ts';
import { cleanup, tempDir } from './helpers.ts';
import { usePostgres } from '../../../test/kit/services.ts';

const services = usePostgres();
afterEach(cleanup);

const bytes = (...values: number[]): Uint8Array => new Uint8Array(values);
const outcome = (append: Promise<number>): Promise<number | string> => append.then((head) => head, (err: { code?: string }) => err.code ?? 'failed');

/** Each storage with a way to make it refuse every row of one room (a trigger, as a disk or a constraint would refuse). */
const storages: Array<{ name: string; open(): Promise<{ store: RoomStorage; refuse(room: string): Promise<void> }> }> = [
  {
    name: 'PostgreSQL',
    async open() {
      const url = await services.postgres.database();
      const store = await PostgresStore.connect(url);
      return {
        store,
        async refuse(room) {
          await services.postgres.sql(
            `CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN IF NEW.room = '${room}' THEN RAISE EXCEPTION 'refused room'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
            [],
            url,
          );
          await services.postgres.sql('CREATE TRIGGER refuse BEFORE INSERT ON zeromem_updates FOR EACH ROW EXECUTE FUNCTION refuse()', [], url);
        },
      };
    },
  },
  {
    name: 'SQLite',
    async open() {
      const dir = tempDir();
      const store = new SqliteStore(dir);
      return {
        store,
        async refuse(room) {
          const Database = (await import('better-sqlite3')).default;
          const db = new Database(`${dir}/relay.sqlite`);
          db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON updates WHEN NEW.room = '${room}' BEGIN SELECT RAISE(ABORT, 'refused room'); END`);
          db.close();
        },
      };
    },
  },
];

describe.each(storages)('group commit across rooms on $name', ({ open }) => {
  it('stores the appends of several rooms made in one turn in one durable write, numbering each room in order', async () => {
    const { store } = await open();
    try {
      const shared = new SharedCommit(store);
      const before = store.durableWrites;
      const first = await Promise.all([shared.append('a', [bytes(1), bytes(2)]), shared.append('b', [bytes(3)]), shared.append('c', [bytes(4), bytes(5), bytes(6)])]);
      expect(store.durableWrites - before).toBe(1);
      // The same room twice in one turn: the second lands after the first.
      const second = await Promise.all([shared.append('a', [bytes(7)]), shared.append('a', [bytes(8)]), shared.append('b', [bytes(9)])]);
      expect(second[1]).toBeGreaterThan(second[0]!);
      for (const [room, head, expected] of [
        ['a', second[1]!, [[1], [2], [7], [8]]],
        ['b', second[2]!, [[3], [9]]],
        ['c', first[2]!, [[4], [5], [6]]],
      ] as const) {
        const stored = await store.load(room);
        expect(stored.updates.map((update) => [...update])).toEqual(expected);
        expect(stored.head).toBe(head);
      }
      if (store.kind === 'postgres') expect([...first, ...second]).toEqual([2, 1, 3, 3, 4, 2]);
    } finally {
      await store.close();
    }
  });

  it('fails only the room whose rows storage refuses; the other rooms of the write are stored', async () => {
    const { store, refuse } = await open();
    try {
      const shared = new SharedCommit(store);
      await shared.append('bad', [bytes(1)]);
      await refuse('bad');
      const results = await Promise.all([outcome(shared.append('good-1', [bytes(2)])), outcome(shared.append('bad', [bytes(3)])), outcome(shared.append('good-2', [bytes(4), bytes(5)]))]);
      expect(results[1]).toBe('STORAGE_FAILED');
      expect(typeof results[0]).toBe('number');
      expect(typeof results[2]).toBe('number');
      expect((await store.load('good-1')).updates.map((update) => [...update])).toEqual([[2]]);
      expect((await store.load('good-2')).updates.map((update) => [...update])).toEqual([[4], [5]]);
      expect((await store.load('bad')).updates.map((update) => [...update])).toEqual([[1]]);
    } finally {
      await store.close();
    }
  });
});

describe('group commit across rooms when PostgreSQL is away', () => {
  it('fails every append of the write as unavailable, and stores again once it is back', async () => {
    const url = await services.postgres.database();
    const store = await PostgresStore.connect(url);
    try {
      const shared = new SharedCommit(store);
      await shared.append('a', [bytes(1)]);
      await services.postgres.halt();
      try {
        expect(await Promise.all([outcome(shared.append('a', [bytes(2)])), outcome(shared.append('b', [bytes(3)]))])).toEqual(['STORAGE_UNAVAILABLE', 'STORAGE_UNAVAILABLE']);
      } finally {
        await services.postgres.resume();
      }
      expect(await Promise.all([outcome(shared.append('a', [bytes(4)])), outcome(shared.append('b', [bytes(5)]))])).toEqual([2, 1]);
    } finally {
      await store.close();
    }
  }, 60_000);
});
