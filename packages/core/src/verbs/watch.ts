import { liveQuery } from 'dexie';
import { requireNamespace } from '../model/namespace.ts';
import type { ListPage } from '../model/types.ts';
import { validateListOptions } from '../model/validate-filter.ts';
import type { ZeromemError } from '../model/errors.ts';
import { list } from './list.ts';
import type { VerbContext } from './verb-context.ts';

/** Receives the current page of a watched list, then again after every change to it. */
export interface WatchListener {
  next: (page: ListPage) => void;
  /** A failed re-query; the watch goes on. */
  error?: (err: ZeromemError) => void;
}

/**
 * Calls `listener.next` with the page `list(namespace, options)` returns now and again
 * whenever a write (in this instance, another instance, or another tab) changes it.
 * Returns the function that stops watching.
 */
export function watch(ctx: VerbContext, namespace: unknown, options: unknown, listener: WatchListener | ((page: ListPage) => void)): () => void {
  requireNamespace(namespace, ctx.limits.maxNameLength);
  validateListOptions(options, ctx.limits);
  const { next, error } = typeof listener === 'function' ? { next: listener, error: undefined } : listener;
  const subscription = liveQuery(() => list(ctx, namespace, options)).subscribe({
    next,
    error: (err: ZeromemError) => {
      if (error) error(err);
      else throw err; // nobody listens for errors: surface it rather than lose it
    },
  });
  return () => subscription.unsubscribe();
}
