import { ZeromemError, type Namespace } from '@zeromem/core';

/**
 * A frozen copy of the namespace the developer binds tools or a middleware to: changing
 * the caller's object later cannot move them, and nothing a model sends can name another.
 * Its contents are checked by core on every call (same rules, same codes).
 */
export function bindNamespace(namespace: unknown, what: string): Readonly<Namespace> {
  if (namespace === undefined || namespace === null) {
    throw new ZeromemError('NAMESPACE_REQUIRED', `${what} needs { namespace: { userId, agentId?, scope? } }: the namespace its memories live in.`);
  }
  if (typeof namespace !== 'object' || Array.isArray(namespace)) {
    throw new ZeromemError('INVALID_INPUT', `${what}: namespace must be an object like { userId: 'alice' }.`, { issues: [{ path: 'namespace', message: 'must be an object like { userId }' }] });
  }
  return Object.freeze({ ...(namespace as Namespace) });
}
