// `get`: its options.

/** Options of `get(namespace, id, options)`. */
export interface GetOptions {
  /** Reading a cold record re-warms it. Default true; `false` reads without touching (sync, tools). */
  rewarm?: boolean;
}
