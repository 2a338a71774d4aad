import type { LifecycleContext } from './lifecycle/lifecycle-context.ts';

/**
 * @internal Each open Memory's context, for tests that must look inside it (e.g. that a
 * forgotten secret left no word in a loaded index). Not exported from the package (nor
 * from `@zeromem/core/internal`, which is src/internal.ts).
 */
export const memoryInternals = new WeakMap<object, LifecycleContext>();
