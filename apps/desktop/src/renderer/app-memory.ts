/**
 * The memory the app's views and agents use, on either platform:
 * - web twin: core's Memory itself, in this page's IndexedDB;
 * - Electron: the device store, opened by the main process and reached through the
 *   preload's memory verbs ({@link deviceMemory}), so the app shares one memory with
 *   zeromem-mcp (Claude Desktop, Cursor) and the CLI on this machine.
 */
import type { ListPage, Memory, Session, SessionOptions, WatchListener } from '@zeromem/core';
import type { DeviceMemoryApi } from '../preload/desktop-api.ts';

/** A conversation: the part of core's Session the agents use. */
export type AppSession = Pick<Session, 'addTurn' | 'context'>;

/** The part of core's Memory the app uses (core's Memory is one). */
export type AppMemory = Pick<Memory, 'remember' | 'get' | 'update' | 'forget' | 'recall' | 'list' | 'profile' | 'watch' | 'audit' | 'exportJsonl' | 'importJsonl' | 'consolidate' | 'listNamespaces'> & {
  session(options: SessionOptions & { id: string }): AppSession;
};

/**
 * How often a watched list is read again from the device store: other processes
 * (zeromem-mcp, the CLI) write to it without telling this one.
 */
export const DEVICE_WATCH_INTERVAL_MS = 1000;

type Verbs = DeviceMemoryApi;

/** The device store behind the preload's verbs, as an {@link AppMemory}. Writes made here refresh the watched lists at once. */
export function deviceMemory(verbs: Verbs, intervalMs = DEVICE_WATCH_INTERVAL_MS): AppMemory {
  const watchers = new Set<() => void>();
  const changed = <T>(result: Promise<T>): Promise<T> =>
    result.then((value) => {
      for (const refresh of watchers) refresh();
      return value;
    });
  const memory: AppMemory = {
    remember: (input, options) => changed(verbs.remember(input, options) as ReturnType<Memory['remember']>),
    // Only what crosses the boundary: `rewarm` stays off (an inspector's read is not a use).
    get: async (namespace, id) => ((await verbs.get(namespace, id)) as Awaited<ReturnType<Memory['get']>> | null) ?? undefined,
    update: (namespace, id, patch, options) => changed(verbs.update(namespace, id, patch, options) as ReturnType<Memory['update']>),
    forget: (namespace, id, options) => changed(verbs.forget(namespace, id, options) as ReturnType<Memory['forget']>),
    recall: (namespace, query, options) => verbs.recall(namespace, query, options) as ReturnType<Memory['recall']>,
    listNamespaces: () => verbs.listNamespaces() as ReturnType<Memory['listNamespaces']>,
    list: (namespace, options) => verbs.list(namespace, options) as ReturnType<Memory['list']>,
    profile: (namespace, options) => verbs.profile(namespace, options) as ReturnType<Memory['profile']>,
    audit: (namespace, options) => verbs.audit(namespace, options) as ReturnType<Memory['audit']>,
    exportJsonl: (scope) => verbs.exportJsonl(scope) as ReturnType<Memory['exportJsonl']>,
    importJsonl: (source, options) => changed(verbs.importJsonl(source, options) as ReturnType<Memory['importJsonl']>),
    consolidate: (namespace, options) => changed(verbs.consolidate(namespace, options) as ReturnType<Memory['consolidate']>),
    session: (options) => ({
      addTurn: (role, content) => changed(verbs.addTurn(options, role, content) as ReturnType<Session['addTurn']>),
      context: (query) => verbs.context(options, query) as ReturnType<Session['context']>,
    }),
    watch(namespace, options, listener) {
      const next = typeof listener === 'function' ? listener : listener.next;
      const onError = typeof listener === 'function' ? undefined : (listener as WatchListener).error;
      let last = '';
      let stopped = false;
      const refresh = () => {
        verbs.list(namespace, options).then(
          (page) => {
            const seen = JSON.stringify(page);
            if (stopped || seen === last) return;
            last = seen;
            next(page as ListPage);
          },
          (err: unknown) => onError?.(err as Parameters<NonNullable<WatchListener['error']>>[0]),
        );
      };
      refresh();
      watchers.add(refresh);
      const timer = setInterval(refresh, intervalMs);
      return () => {
        stopped = true;
        watchers.delete(refresh);
        clearInterval(timer);
      };
    },
  };
  return memory;
}
