import { WebSocket } from 'ws';
import type { RevocationList } from '../auth/revocations.ts';
import { CLOSE } from '@zeromem/protocol';
import type { Logger } from '../log.ts';
import type { RoomStorage } from '../storage/room-storage.ts';
import type { RoomCache } from './room-cache.ts';

/** How often the revocation list is re-read, and (several instances) rooms' heads are compared with storage. */
const POLL_INTERVAL_MS = 1000;

/**
 * What storage holds that this instance must act on. Once a second (and at once when
 * told): re-reads the revocation list and closes (4403) every open socket whose token it
 * revokes; with several instances, also reads the rooms' heads from storage and catches up
 * a room that missed updates.
 */
export class StoragePoller {
  /** Sockets closed because their token was revoked, since start. */
  revokedConnections = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: RoomStorage,
    private readonly revoked: RevocationList,
    private readonly rooms: RoomCache,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.poll(), POLL_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Re-reads the revocation list and closes every open socket whose token it revokes. */
  async readRevocations(): Promise<void> {
    try {
      this.revoked.update(await this.store.revocations());
    } catch (err) {
      // The last list read stays in force.
      this.log.warn('reading revocations failed', { error: (err as Error).message });
      return;
    }
    for (const room of this.rooms.loaded()) {
      for (const peer of room.peers) {
        if (peer.socket.readyState === WebSocket.OPEN && this.revoked.revokes(peer)) {
          this.revokedConnections++;
          this.log.info('token revoked, socket closed', { room: room.name, subject: peer.subject });
          peer.socket.close(CLOSE.tokenRevoked, 'token revoked');
        }
      }
    }
  }

  private async poll(): Promise<void> {
    await this.readRevocations();
    if (this.store.kind !== 'postgres' || this.rooms.size === 0) return;
    let heads: Map<string, number>;
    try {
      heads = await this.store.heads([...this.rooms.loaded()].map((room) => room.name));
    } catch (err) {
      this.log.warn('reading room heads failed', { error: (err as Error).message });
      return;
    }
    for (const [name, head] of heads) {
      const room = this.rooms.get(name);
      if (room && head > room.head) this.rooms.catchUp(room);
    }
  }
}
