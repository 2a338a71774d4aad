import { ZeromemError, type Memory, type Namespace } from '@zeromem/core';

/** An open memory and the one namespace every tool call works in. */
export interface BoundMemory {
  readonly memory: Memory;
  readonly namespace: Readonly<Namespace>;
  /** Who acts, for zeromem's audit log. Default: the memory's actor. */
  readonly actor?: string;
}

/**
 * Checks and freezes what an adapter binds its tools to: changing the caller's namespace
 * object later cannot move them, and nothing a model sends can name another. The
 * namespace's contents are checked by core on every call (same rules, same codes).
 * `what` names the adapter's function in the error messages.
 */
export function bindMemory(options: { memory?: unknown; namespace?: unknown; actor?: string | undefined }, what: string): BoundMemory {
  if (typeof options !== 'object' || options === null || typeof (options.memory as Memory | undefined)?.recall !== 'function') {
    throw new ZeromemError('INVALID_INPUT', `${what} needs { memory, namespace }: memory is what openMemory() returned.`, { issues: [{ path: 'memory', message: 'must be an open Memory' }] });
  }
  const { namespace } = options;
  if (namespace === undefined || namespace === null) {
    throw new ZeromemError('NAMESPACE_REQUIRED', `${what} needs { namespace: { userId, agentId?, scope? } }: the namespace its memories live in.`);
  }
  if (typeof namespace !== 'object' || Array.isArray(namespace)) {
    throw new ZeromemError('INVALID_INPUT', `${what}: namespace must be an object like { userId: 'alice' }.`, { issues: [{ path: 'namespace', message: 'must be an object like { userId }' }] });
  }
  return Object.freeze({ memory: options.memory as Memory, namespace: Object.freeze({ ...(namespace as Namespace) }), ...(options.actor === undefined ? {} : { actor: options.actor }) });
}

/** The write options of a bound memory: its actor, when one was given. */
export function writeOptions(bound: Pick<BoundMemory, 'actor'>): { actor?: string } {
  return bound.actor === undefined ? {} : { actor: bound.actor };
}
