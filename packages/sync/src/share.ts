import { ZeromemError, namespaceKey, type Memory, type Namespace } from '@zeromem/core';
import { DocStore } from './doc-store.ts';
import { importNamespaceKey } from './encryption.ts';
import { checkShareOptions, type ShareOptions } from './options.ts';
import { RecordCodec } from './record-codec.ts';
import { SharedNamespace } from './shared-namespace.ts';
import { readGrant } from './token-grant.ts';

/**
 * Shares one namespace of `memory` with every replica that opens it with a token for the
 * same relay room (the namespace key). Local writes, updates and forgets of the namespace
 * go to the others; theirs land in this memory's store and indexes (and get embedded here).
 * Other namespaces never leave the device. The shared document is kept in IndexedDB
 * (database `<memory name>-sync`), so a restart neither loses unsent changes nor downloads
 * everything again. Close the share before the memory.
 *
 * @example
 * const share = await shareNamespace(memory, { userId: 'alice', scope: 'support' }, { url, token, agentName: 'support-bot' });
 * await share.synced;
 * @throws ZeromemError INVALID_INPUT (options, key), NAMESPACE_REQUIRED, UNAUTHORIZED (the token is expired or names other rooms),
 *   CONFLICT (this memory already shares the namespace: close that share first)
 */
export async function shareNamespace(memory: Memory, namespace: Namespace, options: ShareOptions): Promise<SharedNamespace> {
  const opts = checkShareOptions(options);
  await memory.audit(namespace, { limit: 1 }); // validates the namespace with core's rules and codes
  const room = namespaceKey(namespace);
  const grant = readGrant(opts.token, room);
  if (grant.expiresAt !== undefined && grant.expiresAt <= Date.now()) {
    throw new ZeromemError('UNAUTHORIZED', 'The relay token has expired: ask for a new one (zeromem-relay token).');
  }
  if (grant.listsRooms && grant.access === undefined) {
    throw new ZeromemError('UNAUTHORIZED', `The relay token does not grant namespace ${room}: ask for a token naming this room.`);
  }
  const key = opts.encryptionKey === undefined ? undefined : await importNamespaceKey(opts.encryptionKey);
  const open = openShares.get(memory) ?? new Set<string>();
  if (open.has(room)) throw new ZeromemError('CONFLICT', `Namespace ${room} is already shared by this memory: use that share, or close it first.`);
  open.add(room);
  openShares.set(memory, open);
  try {
    const store = new DocStore(`${memory.name}-sync`, opts);
    await store.open();
    const share = new SharedNamespace(memory, namespace, room, opts, new RecordCodec(room, key), store, opts.readOnly ?? grant.access === 'read', () => open.delete(room));
    await share.start();
    return share;
  } catch (err) {
    open.delete(room);
    throw err;
  }
}

/** The rooms each memory shares in this process: one share per namespace, or two would race on one stored document. */
const openShares = new WeakMap<Memory, Set<string>>();

