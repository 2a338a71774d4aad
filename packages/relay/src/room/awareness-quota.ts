/**
 * Awareness each token subject holds on this instance, over all its sockets and rooms: how
 * many client states it published that are still current (or removed, while the room keeps
 * their clock), and their bytes. Awareness is
 * kept in memory and sent to every peer that joins a room, so without a bound one socket
 * can publish client ids until the relay runs out of memory (one read-only socket published
 * 867,200 in 15 s). A y-websocket client publishes one state per socket.
 */
export class AwarenessQuota {
  private readonly held = new Map<string, { states: number; bytes: number }>();

  constructor(
    private readonly maxStates: number,
    private readonly maxBytes: number,
  ) {}

  /** Whether `subject` may hold `states` more states and `bytes` more bytes (what does not grow never fails). */
  allows(subject: string, states: number, bytes: number): boolean {
    const now = this.held.get(subject) ?? { states: 0, bytes: 0 };
    return (states <= 0 || now.states + states <= this.maxStates) && (bytes <= 0 || now.bytes + bytes <= this.maxBytes);
  }

  /** Counts `states` more states and `bytes` more bytes for `subject` (negative when released). */
  add(subject: string, states: number, bytes: number): void {
    const now = this.held.get(subject) ?? { states: 0, bytes: 0 };
    const next = { states: now.states + states, bytes: now.bytes + bytes };
    if (next.states <= 0) this.held.delete(subject);
    else this.held.set(subject, next);
  }
}
