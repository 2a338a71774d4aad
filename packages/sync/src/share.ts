import { ZeromemError, namespaceKey, type Memory, type Namespace } from '@zeromem/core';
import { importNamespaceKey } from './encryption.ts';
import { checkShareOptions, type ShareOptions } from './options.ts';
import { RecordCodec } from './record-codec.ts';
import type { Peer } from './peers.ts';
import { SharedNamespace } from './shared-namespace.ts';
import { readGrant } from '@zeromem/protocol';

/**
 * Shares one namespace of `memory` with every replica that opens it with a token for the
 * same relay room (the namespace key). Local writes, updates and forgets of the namespace
 * go to the others; theirs land in this memory's store and indexes (and get embedded here).
 * Other namespaces never leave the device. The shared document is kept in the memory's
 * own store (in Node its one file), so a restart neither loses unsent changes nor
 * downloads everything again. Close the share before the memory.
 *
 * @example relay
 * const share = await shareNamespace(memory, { userId: 'alice', scope: 'support' }, { url, token, agentName: 'support-bot' });
 * await share.synced;
 * @throws ZeromemError INVALID_INPUT (options, key, `readOnly: false` with a read-only token), NAMESPACE_REQUIRED, UNAUTHORIZED (the token is expired or names other rooms),
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
  if (opts.readOnly === false && grant.access === 'read') {
    // The relay would drop every write while they stay here: the replicas would differ for good.
    throw new ZeromemError('INVALID_INPUT', `Invalid shareNamespace options: readOnly: the token only grants reading ${room}; pass readOnly: true (or leave it out), or use a read-write token.`, {
      issues: [{ path: 'readOnly', message: `must not be false: the token only grants reading ${room}` }],
    });
  }
  const key = opts.encryptionKey === undefined ? undefined : await importNamespaceKey(opts.encryptionKey);
  const open = openShares.get(memory) ?? new Map<string, SharedNamespace | undefined>();
  if (open.has(room)) throw new ZeromemError('CONFLICT', `Namespace ${room} is already shared by this memory: use that share, or close it first.`);
  open.set(room, undefined); // taken while the share starts
  openShares.set(memory, open);
  try {
    const share = new SharedNamespace({ memory, namespace, room, opts, codec: new RecordCodec(room, key), readOnly: opts.readOnly ?? grant.access === 'read', onClosed: () => open.delete(room) });
    await share.start();
    open.set(room, share);
    return share;
  } catch (err) {
    open.delete(room);
    throw err;
  }
}

/**
 * Who is online in a namespace this memory shares (other replicas' agent and device
 * names, from the relay's awareness); empty when the namespace is not shared here.
 *
 * @example
 * import { openMemory } from '@zeromem/core';
 * import { peers } from '@zeromem/sync';
 *
 * const memory = await openMemory({ name: 'support' });
 * // not shared, so no one else is there:
 * console.log(peers(memory, { userId: 'alice', scope: 'support' }).map((peer) => peer.agentName)); // []
 * await memory.close();
 * @throws ZeromemError NAMESPACE_REQUIRED or INVALID_INPUT for a bad namespace
 */
export function peers(memory: Memory, namespace: Namespace): Peer[] {
  return openShares.get(memory)?.get(namespaceKey(namespace))?.peers() ?? [];
}

/** The shares of each memory in this process: one per namespace, or two would race on one stored document. */
const openShares = new WeakMap<Memory, Map<string, SharedNamespace | undefined>>();

