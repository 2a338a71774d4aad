import { requireNamespace } from '../model/namespace.ts';
import type { ListPage } from '../public/list.ts';
import { validateListOptions } from '../model/validate-filter.ts';
import { invalidInput } from '../model/errors.ts';
import type { ZeromemError } from '../public/errors.ts';
import { list } from './list.ts';
import type { VerbContext } from '../write/verb-context.ts';
import type { WatchListener } from '../public/watch.ts';

/**
 * Calls `listener.next` with the page `list(namespace, options)` returns now and again
 * whenever a write (in this instance, another instance, or another tab) changes it.
 * Returns the function that stops watching.
 */
export function watch(ctx: VerbContext, namespace: unknown, options: unknown, listener: WatchListener | ((page: ListPage) => void)): () => void {
  requireNamespace(namespace, ctx.limits.maxNameLength);
  validateListOptions(options, ctx.limits, '', ctx.clock.now());
  const target = checkListener(listener);
  return ctx.store.observe(() => list(ctx, namespace, options), {
    // Called as methods, so a listener object keeps its `this`.
    next: (page) => target.next(page),
    error: (err) => {
      if (target.error) target.error(err as ZeromemError);
      else throw err; // nobody listens for errors: surface it rather than lose it
    },
  });
}

/** A listener is a function or `{ next, error? }`; anything else would fail later, far from the call. */
function checkListener(listener: unknown): WatchListener {
  if (typeof listener === 'function') return { next: listener as WatchListener['next'] };
  if (typeof listener !== 'object' || listener === null) {
    throw invalidInput('listener', [{ path: 'listener', message: 'must be a function or an object like { next, error? }' }]);
  }
  const { next, error } = listener as Record<string, unknown>;
  if (typeof next !== 'function') throw invalidInput('listener', [{ path: 'listener.next', message: 'must be a function' }]);
  if (error !== undefined && typeof error !== 'function') {
    throw invalidInput('listener', [{ path: 'listener.error', message: 'must be a function when given' }]);
  }
  return listener as WatchListener;
}
