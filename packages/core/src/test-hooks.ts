import type { LifecycleContext } from './lifecycle/lifecycle-context.ts';
import type { HistoryCounts } from './context/history-counts.ts';

/**
 * @internal Each open Memory's context, for tests that must look inside it (e.g. that a
 * forgotten secret left no word in a loaded index). Not exported from the package (nor
 * from `@zeromem/core/internal`, which is src/internal.ts).
 */
export const memoryInternals = new WeakMap<object, LifecycleContext>();

/** @internal Each open Memory's full-history counts, for the forget tests (they must hold no forgotten record). */
export const historyInternals = new WeakMap<object, HistoryCounts>();
