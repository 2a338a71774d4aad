/**
 * `@zeromem/core/internal`: what zeromem's own packages (`@zeromem/sync`, the agent
 * integrations) need from core
 * and applications do not. Not covered by semver: it changes with those packages.
 * Applications use `@zeromem/core`.
 *
 * @packageDocumentation
 */
export { replicaOf, type DocLogAccess, type Replica, type ReplicaApplyOptions } from './replica.ts';
export type { DocLog } from './store/port.ts';
export { replicatedState } from './model/replicated-state.ts';
export { canonicalJson } from './model/canonical-json.ts';
export type { ApplyReplicatedResult, ReplicatedChange, ReplicatedRecord } from './model/types.ts';
export { memoryView, type MemoryView } from './model/memory-view.ts';
export { parseNamespaceKey } from './model/namespace.ts';
