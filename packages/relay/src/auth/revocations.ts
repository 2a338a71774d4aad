import type { Revocation } from '../storage/room-storage.ts';
import { CLOCK_SKEW_SECONDS, MAX_TTL_SECONDS } from '@zeromem/protocol';

/** What a revocation is checked against: a token's id, subject and issue time. */
export interface RevocableToken {
  subject: string;
  issuedAt: number;
  tokenId?: string;
}

/**
 * How long a revocation is kept: past it every token it covers has expired anyway (a token
 * lives at most {@link MAX_TTL_SECONDS}, and may be issued {@link CLOCK_SKEW_SECONDS} ahead).
 */
const REVOCATION_LIFETIME_MS = (MAX_TTL_SECONDS + 2 * CLOCK_SKEW_SECONDS) * 1000;

/** A revocation of one token id, or of every token of `subject` issued up to now. */
export function revocation(kind: Revocation['kind'], value: string, now: number = Date.now()): Revocation {
  return { kind, value, revokedAt: now, expiresAt: now + REVOCATION_LIFETIME_MS };
}

/**
 * The revocation list as one instance last read it from storage (every second, and at once
 * on a notice through Redis). A token is revoked when its id is listed, or its subject is
 * listed with a revocation time at or after the token's issue time (a token issued later,
 * to the same subject, is valid again).
 */
export class RevocationList {
  private tokens = new Set<string>();
  private subjects = new Map<string, number>();

  /** Replaces the list by what storage holds now. */
  update(revocations: readonly Revocation[]): void {
    this.tokens = new Set(revocations.filter((r) => r.kind === 'token').map((r) => r.value));
    this.subjects = new Map(revocations.filter((r) => r.kind === 'subject').map((r) => [r.value, r.revokedAt]));
  }

  /** Whether `token` is revoked. */
  revokes(token: RevocableToken): boolean {
    if (token.tokenId !== undefined && this.tokens.has(token.tokenId)) return true;
    const revokedAt = this.subjects.get(token.subject);
    return revokedAt !== undefined && token.issuedAt <= revokedAt;
  }
}
