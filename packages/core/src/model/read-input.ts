/**
 * What an unreadable part of an input becomes in its snapshot: a getter, or an object whose
 * Proxy traps throw. Validation reports it at its path like any value of the wrong type, so
 * it ends as INVALID_INPUT instead of escaping as a raw Error.
 */
export class UnreadableInput {
  constructor(
    /** Says what it was, for error messages ("a getter or setter", ...). */
    readonly reason: string,
  ) {}
}

/** Objects, array slots and properties read per snapshot: a Proxy claiming a huge length cannot make it loop for long. */
const MAX_NODES = 1 << 24;

/**
 * The data of a caller's argument, read once, where it enters the public API: plain
 * objects and arrays are copied through their property descriptors (no getter runs; a
 * getter, or an object whose Proxy traps throw, becomes {@link UnreadableInput}), Dates
 * are copied by their time, and everything else (strings, numbers, functions, class
 * instances, iterables) is kept as given. Validators then read the copy, which can neither
 * throw nor change between a check and a later read.
 *
 * `byReference` names top-level keys whose values are providers or host objects
 * (a clock, an embedder, an IndexedDB factory): they are kept as given, unread.
 */
export function readInput<T>(value: T, byReference: readonly string[] = []): T {
  return copy(value, { nodes: MAX_NODES, ancestors: [] }, byReference) as T;
}

/** {@link readInput} for each argument of a call. */
export function readInputs<T extends unknown[]>(...args: T): T {
  return args.map((arg) => readInput(arg)) as T;
}

/** True when `check` returns true without throwing: for probing providers, which are kept as given. */
export function probe(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}

/** The walk's state: what is left of the node budget, and the objects being copied (a cycle is cut where it closes). */
interface Walk {
  nodes: number;
  ancestors: object[];
}

const ACCESSOR = 'a getter or setter (only data properties are read)';

function copy(value: unknown, walk: Walk, byReference: readonly string[]): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (walk.ancestors.includes(value)) return new UnreadableInput('a cycle (an object that contains itself)');
  if (--walk.nodes < 0) return new UnreadableInput('an input too large to read');
  walk.ancestors.push(value);
  try {
    if (Array.isArray(value)) return copyArray(value, walk);
    const proto: unknown = Object.getPrototypeOf(value);
    // Date.prototype.getTime throws for anything that is not a real Date (a Proxy of one, too).
    if (proto === Date.prototype) return new Date(Date.prototype.getTime.call(value));
    if (proto !== Object.prototype && proto !== null) return value;
    const out = (proto === null ? Object.create(null) : {}) as Record<PropertyKey, unknown>;
    for (const key of Reflect.ownKeys(value)) {
      if (--walk.nodes < 0) return new UnreadableInput('an input too large to read');
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (!descriptor) continue; // a Proxy listed a key it does not have
      const item = !('value' in descriptor)
        ? new UnreadableInput(ACCESSOR)
        : typeof key === 'string' && byReference.includes(key)
          ? descriptor.value
          : copy(descriptor.value, walk, []);
      // defineProperty keeps an own "__proto__" key a key (validation refuses it) and non-enumerable keys as they were.
      if (key === '__proto__' || !descriptor.enumerable) Object.defineProperty(out, key, { value: item, enumerable: descriptor.enumerable, writable: true, configurable: true });
      else out[key] = item;
    }
    return out;
  } catch (err) {
    return new UnreadableInput(`an object that throws when read (${err instanceof Error ? err.message : String(err)})`);
  } finally {
    walk.ancestors.pop();
  }
}

function copyArray(value: unknown[], walk: Walk): unknown {
  const length = value.length;
  if (!(Number.isSafeInteger(length) && length >= 0) || length > walk.nodes) return new UnreadableInput('an array too long to read');
  walk.nodes -= length;
  const out: unknown[] = new Array(length);
  for (let i = 0; i < length; i++) {
    const descriptor = Object.getOwnPropertyDescriptor(value, i);
    if (!descriptor) continue; // a hole stays a hole
    out[i] = 'value' in descriptor ? copy(descriptor.value, walk, []) : new UnreadableInput(ACCESSOR);
  }
  return out;
}
