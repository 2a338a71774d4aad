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
 * @throws ZeromemError INVALID_INPUT (options, key), NAMESPACE_REQUIRED, UNAUTHORIZED (the token is expired or names other rooms)
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
  const store = new DocStore(`${memory.name}-sync`, opts);
  await store.open();
  const share = new SharedNamespace(memory, namespace, room, opts, new RecordCodec(room, key), store, opts.readOnly ?? grant.access === 'read');
  await share.start();
  return share;
}

