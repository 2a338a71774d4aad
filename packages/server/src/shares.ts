import type { Memory, Namespace, ZeromemError } from '@zeromem/core';
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
