import type { Awareness } from 'y-protocols/awareness';

/** Another replica online in a shared namespace, as its awareness state says. */
export interface Peer {
  /** The replica's Yjs client id (one per open share). */
  clientId: number;
  /** The `agentName` it shares with, if any. */
  agentName: string | undefined;
  /** The `deviceName` it shares with, if any. */
  deviceName: string | undefined;
  /** True when it does not send changes (a read-only token or `readOnly: true`). */
  readOnly: boolean;
}

/** What a replica publishes about itself. */
export interface PeerState {
  /** See {@link Peer.agentName}. */
  agentName?: string;
  /** See {@link Peer.deviceName}. */
  deviceName?: string;
  /** See {@link Peer.readOnly}. */
  readOnly: boolean;
}

/** The replicas in `awareness` other than this one; states that are not a zeromem peer's are left out. */
export function listPeers(awareness: Awareness): Peer[] {
  const peers: Peer[] = [];
  for (const [clientId, state] of awareness.getStates()) {
    if (clientId === awareness.clientID) continue;
    const published: unknown = (state as { zeromem?: unknown }).zeromem;
    if (typeof published !== 'object' || published === null) continue;
    const { agentName, deviceName, readOnly } = published as Record<string, unknown>;
    // Another peer wrote this: keep only well-typed fields.
    peers.push({
      clientId,
      agentName: typeof agentName === 'string' ? agentName : undefined,
      deviceName: typeof deviceName === 'string' ? deviceName : undefined,
      readOnly: readOnly === true,
    });
  }
  return peers.sort((a, b) => a.clientId - b.clientId);
}
