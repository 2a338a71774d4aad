import { ZeromemError } from '../../public/errors.ts';

/**
 * Runs a storage operation and turns IndexedDB/Dexie failures into coded errors:
 * a full disk is QUOTA_EXCEEDED, a closed database is CLOSED, anything else
 * STORAGE_FAILED with the original error as `details.cause`.
 */
export async function withStorage<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (err) {
    throw toZeromemError(err);
  }
}

function toZeromemError(err: unknown): ZeromemError {
  if (err instanceof ZeromemError) return err;
  // Dexie wraps what the IndexedDB implementation threw (a store on disk throws coded errors).
  const wrapped = (err as { inner?: unknown } | null)?.inner;
  if (wrapped instanceof ZeromemError) return wrapped;
  const name = (err as { name?: unknown } | null)?.name;
  const inner = (err as { inner?: { name?: unknown } } | null)?.inner?.name;
  if (name === 'QuotaExceededError' || inner === 'QuotaExceededError') {
    return new ZeromemError('QUOTA_EXCEEDED', 'The device storage quota is exhausted: forget or export old memories, or ask the browser for persistent storage.', { cause: err });
  }
  if (name === 'DatabaseClosedError') {
    return new ZeromemError('CLOSED', 'This memory was closed; open it again with openMemory().', { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ZeromemError('STORAGE_FAILED', `The IndexedDB operation failed (nothing from it was written): ${message}`, { cause: err });
}
