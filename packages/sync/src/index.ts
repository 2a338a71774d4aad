/**
 * `@zeromem/sync`: shares namespaces of a zeromem memory between devices and agents, as
 * Yjs documents through a `@zeromem/relay`, optionally end-to-end encrypted.
 */
export { peers, shareNamespace } from './share.ts';
export { SharedNamespace, type ShareStatus } from './shared-namespace.ts';
export type { ShareOptions } from './options.ts';
export type { Peer } from './peers.ts';
export { generateNamespaceKey, type NamespaceKeyInput } from './encryption.ts';
