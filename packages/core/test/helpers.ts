import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { openMemory, type Clock, type Memory, type OpenMemoryOptions } from '../src/index.ts';

/** A clock that only moves when told to. */
export interface FakeClock extends Clock {
  set(time: number): void;
  advance(ms: number): void;
}

/** A fake clock starting at 2026-01-01T00:00:00Z unless told otherwise. */
export function fakeClock(start = Date.UTC(2026, 0, 1)): FakeClock {
  let time = start;
  return {
    now: () => time,
    set: (t) => void (time = t),
    advance: (ms) => void (time += ms),
  };
}

/** A fresh, private IndexedDB (fake-indexeddb) so tests never see each other's data. */
export function freshIndexedDB(): Pick<OpenMemoryOptions, 'indexedDB' | 'IDBKeyRange'> {
  return { indexedDB: new IDBFactory(), IDBKeyRange };
}

/** Opens a memory on a fresh database with a fake clock. */
export async function openTestMemory(options: OpenMemoryOptions = {}): Promise<{ memory: Memory; clock: FakeClock }> {
  const clock = (options.clock as FakeClock | undefined) ?? fakeClock();
  const memory = await openMemory({ ...freshIndexedDB(), name: 'test', ...options, clock });
  return { memory, clock };
}

/** Every string stored anywhere in the database, for "is it gone?" checks. */
export async function dumpDatabase(factory: IDBFactory, name: string): Promise<string> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = factory.open(name);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const parts: string[] = [];
  for (const storeName of Array.from(db.objectStoreNames)) {
    const rows = await new Promise<unknown[]>((resolve, reject) => {
      const request = db.transaction(storeName).objectStore(storeName).getAll();
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    parts.push(JSON.stringify(rows));
  }
  db.close();
  return parts.join('\n');
}
