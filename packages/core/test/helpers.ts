import { expect } from 'vitest';
import { ERROR_CODES, ZeromemError, type ErrorCode } from '../src/index.ts';

// Memories on either engine, places, clocks and seeds: the test kit's (test/kit), for every core test.
export {
  dumpDatabase,
  fakeClock,
  freshIndexedDB,
  freshPlace,
  openMemoryAt,
  openStoreAt,
  openTestMemory,
  readStores,
  rowCount,
  sqliteFileOf,
  type Engine,
  type FakeClock,
  type StorePlace,
  type TestMemory,
} from '../../../test/kit/memory.ts';

/** Awaits a promise that must reject (or a function that must throw) with a ZeromemError; returns it. */
export async function rejection(work: Promise<unknown> | (() => unknown)): Promise<ZeromemError> {
  let outcome: unknown;
  try {
    await (typeof work === 'function' ? work() : work);
    outcome = undefined;
  } catch (err) {
    outcome = err;
  }
  if (outcome === undefined) throw new Error('expected a rejection, but the call succeeded');
  if (!(outcome instanceof ZeromemError)) throw new Error(`expected a ZeromemError, got ${String(outcome)}`, { cause: outcome });
  expect(ERROR_CODES).toContain(outcome.code);
  return outcome;
}

/** Asserts a ZeromemError with this code and, when given, this first issue path. */
export async function expectCode(work: Promise<unknown> | (() => unknown), code: ErrorCode, path?: string): Promise<ZeromemError> {
  const err = await rejection(work);
  expect(err.code, err.message).toBe(code);
  if (path !== undefined) expect(err.details.issues?.[0]?.path, err.message).toBe(path);
  return err;
}

/** The fast-check seed, printed; `FC_SEED` replays one (test/kit/seed.ts). */
export { testSeed as fcSeed } from '../../../test/kit/seed.ts';

/** The fields every public record has, and only these. */
export const RECORD_FIELDS = [
  'accessCount',
  'closedBy',
  'content',
  'contentHash',
  'createdAt',
  'expiresAt',
  'id',
  'importance',
  'key',
  'lastAccessedAt',
  'layer',
  'mergedFrom',
  'metadata',
  'namespace',
  'namespaceKey',
  'source',
  'statedUntil',
  'tags',
  'tier',
  'updatedAt',
  'validFrom',
  'validUntil',
  'version',
] as const;
