// `watch`: the listener a live query calls.

import type { ListPage } from './list.ts';
import type { ZeromemError } from './errors.ts';

/** Receives the current page of a watched list, then again after every change to it. */
export interface WatchListener {
  next: (page: ListPage) => void;
  /** A failed re-query; the watch goes on. */
  error?: (err: ZeromemError) => void;
}
