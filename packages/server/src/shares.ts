import { namespaceKey, type Memory, type Namespace, type ZeromemError } from '@zeromem/core';
import { shareNamespace, type SharedNamespace } from '@zeromem/sync';
import WebSocket from 'ws';

/** Where and how the service shares namespaces (`zeromem serve --share`). */
export interface ShareSettings {
  /** The namespaces to share (given as keys, `u=wang;a=after-sales`: the relay's room names). */
  namespaces: Namespace[];
  /** The relay, `ws://` or `wss://`. */
  url: string;
  /** A relay token granting every one of the namespaces. */
  token: string;
  /** The namespaces' key when their rooms are end-to-end encrypted. */
  encryptionKey: string | undefined;
}

/**
 * Parses a namespace key, `u=<userId>[;a=<agentId>][;s=<scope>]` with URI-encoded parts (as
 * `namespaceKey` writes it and `zeromem-relay token --room` takes it); `undefined` when it
 * is not one.
 */
export function parseNamespaceKey(key: string): Namespace | undefined {
  const match = /^u=([^;]+)(?:;a=([^;]+))?(?:;s=([^;]+))?$/.exec(key);
  if (!match) return undefined;
  let namespace: Namespace;
  try {
    const [userId, agentId, scope] = match.slice(1).map((part) => (part === undefined ? undefined : decodeURIComponent(part)));
    namespace = { userId: userId!, ...(agentId === undefined ? {} : { agentId }), ...(scope === undefined ? {} : { scope }) };
  } catch {
    return undefined; // a malformed %-escape
  }
  // Only the canonical spelling: it is the relay's room name, so it must match exactly.
  return namespaceKey(namespace) === key ? namespace : undefined;
}

/**
 * Joins each namespace's shared copy through the relay, so what the service writes reaches
 * the user's other replicas and theirs reach the service. Resolves once every share has
 * started (not synced: `synced` is logged by the caller); a share that cannot start stops
 * the ones before it and rejects with its coded error.
 */
export async function startShares(memory: Memory, settings: ShareSettings, onError: (err: ZeromemError) => void): Promise<SharedNamespace[]> {
  const shares: SharedNamespace[] = [];
  try {
    for (const namespace of settings.namespaces) {
      shares.push(
        await shareNamespace(memory, namespace, {
          url: settings.url,
          token: settings.token,
          WebSocketPolyfill: WebSocket,
          agentName: 'zeromem-serve',
          ...(settings.encryptionKey ? { encryptionKey: settings.encryptionKey } : {}),
          onError,
        }),
      );
    }
  } catch (err) {
    await Promise.all(shares.map((share) => share.close()));
    throw err;
  }
  return shares;
}
